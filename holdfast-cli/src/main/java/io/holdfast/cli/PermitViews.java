package io.holdfast.cli;

import io.holdfast.DistributedReadWriteLock;
import io.holdfast.DistributedSemaphore;
import io.holdfast.LockAdmin;
import io.holdfast.LockInfo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How {@code status} and {@code list} show the locks of a semaphore or read-write lock NAME: permit {@code i} is the
 * lock {@code NAME#permit-i} and every acquire passes through the lock {@code NAME#gate} (see
 * {@link DistributedSemaphore}). A read takes one permit, a write all of them. The store keeps no record of how many
 * permits a name has: only which permit locks are held.
 */
final class PermitViews {
    static final String GATE = "#gate";
    static final String PERMIT = "#permit-";
    private static final Pattern PERMIT_NAME = Pattern.compile("(.+)#permit-(0|[1-9][0-9]?)");

    private PermitViews() {
    }

    /**
     * A lock of a semaphore.
     *
     * @param semaphore the semaphore's (or read-write lock's) name
     * @param permit the permit's index, or -1 for the gate
     */
    record Member(String semaphore, int permit, LockInfo info) {
        boolean isGate() {
            return permit < 0;
        }
    }

    /** The semaphore {@code info} belongs to, if its name is one of a semaphore's locks. */
    static Optional<Member> member(LockInfo info) {
        String name = info.name();
        if (name.endsWith(GATE)) {
            String base = name.substring(0, name.length() - GATE.length());
            return semaphoreName(base) ? Optional.of(new Member(base, -1, info)) : Optional.empty();
        }
        Matcher m = PERMIT_NAME.matcher(name);
        if (m.matches() && semaphoreName(m.group(1))) {
            int permit = Integer.parseInt(m.group(2));
            if (permit < DistributedSemaphore.MAX_PERMITS) {
                return Optional.of(new Member(m.group(1), permit, info));
            }
        }
        return Optional.empty();
    }

    private static boolean semaphoreName(String base) {
        return !base.isEmpty() && base.length() <= DistributedSemaphore.MAX_NAME_LENGTH;
    }

    /**
     * What the store shows of one semaphore.
     *
     * @param permits its held permits, by index
     * @param gate its gate if held (an acquire is taking permits), else null
     */
    record Semaphore(String name, List<Member> permits, LockInfo gate) {
        boolean isEmpty() {
            return permits.isEmpty() && gate == null;
        }

        /** The number of permits it has at least: the highest held index plus one (0 if none is held). */
        int atLeast() {
            return permits.isEmpty() ? 0 : permits.get(permits.size() - 1).permit() + 1;
        }

        List<String> holders() {
            return PermitViews.holders(permits);
        }

        /** Held permits whose owner ids mark {@code role}: a read-write lock's reads or writes. */
        List<Member> held(LockInfo.Role role) {
            return permits.stream().filter(p -> p.info().role() == role).toList();
        }

        /** Whether its held permits are a read-write lock's (marked as reads or writes by clients of this version). */
        boolean isReadWriteLock() {
            return !held(LockInfo.Role.READER).isEmpty() || !held(LockInfo.Role.WRITER).isEmpty();
        }
    }

    static List<String> holders(List<Member> permits) {
        return permits.stream().map(p -> p.info().holder()).filter(Objects::nonNull).distinct().toList();
    }

    /**
     * What a read-write lock's held permits say, short (for {@code list}): {@code writer}, {@code 3 readers}, or
     * {@code 2 readers, 5 writing} while a writer takes its permits (or after a write was downgraded to a read).
     */
    static String readWriteShort(Semaphore s) {
        int readers = s.held(LockInfo.Role.READER).size();
        int writing = s.held(LockInfo.Role.WRITER).size();
        if (writing == DistributedReadWriteLock.MAX_READERS) {
            return "writer";
        }
        String r = readers + (readers == 1 ? " reader" : " readers");
        return writing == 0 ? r : r + ", " + writing + " writing";
    }

    /** {@code status}'s line on a read-write lock: its writer or its readers, and by whom. */
    static String readWriteSummary(Semaphore s) {
        List<Member> readers = s.held(LockInfo.Role.READER);
        List<Member> writing = s.held(LockInfo.Role.WRITER);
        StringBuilder b = new StringBuilder("read-write lock '").append(s.name()).append("': ");
        if (writing.size() == DistributedReadWriteLock.MAX_READERS) {
            return b.append("written by ").append(String.join(", ", holders(writing))).append(" (all ")
                    .append(DistributedReadWriteLock.MAX_READERS).append(" permits)").toString();
        }
        b.append(readers.size()).append(readers.size() == 1 ? " reader" : " readers").append(" of at most ")
                .append(DistributedReadWriteLock.MAX_READERS);
        List<String> readerHolders = holders(readers);
        if (!readerHolders.isEmpty()) {
            b.append(", by ").append(readerHolders.size() == 1 ? readerHolders.get(0) : readerHolders.size() + " holders");
        }
        if (!writing.isEmpty()) {
            b.append("; ").append(String.join(", ", holders(writing))).append(" holds ").append(writing.size())
                    .append(" of its permits for a write: ").append(s.gate() != null ? "a writer waiting for the readers to leave"
                            : "a write downgraded to a read, or a writer taking its permits");
        }
        return b.toString();
    }

    /** Asks the store for the held permits and the gate of the semaphore {@code name}: two calls. */
    static Semaphore lookUp(LockAdmin admin, String name) {
        if (!semaphoreName(name)) {
            return new Semaphore(name, List.of(), null);
        }
        List<Member> permits = new ArrayList<>();
        for (LockInfo info : admin.list(name + PERMIT, 4 * DistributedSemaphore.MAX_PERMITS)) {
            member(info).filter(m -> m.semaphore().equals(name) && !m.isGate() && info.held()).ifPresent(permits::add);
        }
        permits.sort(Comparator.comparingInt(Member::permit));
        LockInfo gate = admin.status(name + GATE).filter(LockInfo::held).orElse(null);
        return new Semaphore(name, List.copyOf(permits), gate);
    }

    /**
     * One line on what is held: {@code 2 of 3 permits held, by 2 holders; 1 free}, with {@code permits} the number
     * the user gave (null if not given; then the highest held index is a lower bound).
     */
    static String summary(Semaphore s, Integer permits) {
        if (s.isReadWriteLock()) {
            return readWriteSummary(s);
        }
        int held = s.permits().size();
        List<String> holders = s.holders();
        StringBuilder b = new StringBuilder("semaphore or read-write lock '").append(s.name()).append("': ");
        boolean known = permits != null && permits >= s.atLeast();
        b.append(held).append(known ? " of " + permits : "").append(held == 1 && !known ? " permit" : " permits").append(" held");
        if (holders.size() == 1) {
            b.append(", by ").append(holders.get(0));
        } else if (holders.size() > 1) {
            b.append(", by ").append(holders.size()).append(" holders");
        }
        if (known) {
            if (held == permits && held > 1 && holders.size() == 1) {
                b.append(": a write lock, or ").append(held).append(" reads by one process");
            } else {
                b.append("; ").append(permits - held).append(" free");
            }
        } else if (held > 0) {
            b.append("; it has at least ").append(s.atLeast()).append(" (#permit-").append(s.atLeast() - 1).append(" is held")
                    .append(permits == null ? "; --permits N says how many" : ", though --permits says " + permits).append(')');
        }
        return b.toString();
    }

    /** The held permits, one row each. */
    static Table permitTable(Semaphore s) {
        Table table = new Table("PERMIT", "HOLDER", "OWNER ID", "TOKEN", "LEASE LEFT").alignRight(0, 3, 4);
        for (Member p : s.permits()) {
            LockInfo i = p.info();
            table.row(p.permit(), i.holder(), i.ownerId(), i.fencingToken(), LockViews.leaseLeft(i.leaseRemaining()));
        }
        return table;
    }

    /** A line on the held gate: who is acquiring. */
    static String gateLine(LockInfo gate) {
        return "acquiring: " + gate.holder() + " holds " + gate.name() + " (token " + gate.fencingToken() + ", lease left "
                + LockViews.leaseLeft(gate.leaseRemaining()) + "): it takes its permits and waits for held ones it needs "
                + "(a writer waits there for the readers inside); every other acquire waits behind it";
    }

    /** {@code status --json}'s {@code semaphore} object. */
    static Json.Obj json(Semaphore s, Integer permits) {
        List<Object> held = new ArrayList<>();
        for (Member p : s.permits()) {
            held.add(Json.object().put("permit", p.permit()).put("name", p.info().name()).put("holder", p.info().holder())
                    .put("ownerId", p.info().ownerId()).put("fencingToken", p.info().fencingToken())
                    .put("leaseRemainingMillis", p.info().leaseRemaining() == null ? null : p.info().leaseRemaining().toMillis()));
        }
        Json.Obj readWrite = !s.isReadWriteLock() ? null : Json.object().put("readers", s.held(LockInfo.Role.READER).size())
                .put("writePermits", s.held(LockInfo.Role.WRITER).size()).put("writers", holders(s.held(LockInfo.Role.WRITER)));
        return Json.object().put("permitsHeld", s.permits().size()).put("permits", permits).put("atLeastPermits", s.atLeast())
                .put("holders", s.holders().size()).put("held", held)
                .put("gate", s.gate() == null ? null : LockViews.json(s.gate())).put("readWrite", readWrite);
    }

    /**
     * {@code list}'s table: a semaphore's locks grouped under a row of its name (where the first of them comes in
     * name order) with the count of permits held, each permit by index, and its gate, which the list shows only while
     * held, as {@code acquiring}.
     */
    static Table listTable(List<LockInfo> locks) {
        List<Object> rows = new ArrayList<>(); // a lock's LockInfo, or a semaphore's name in place of its members
        Map<String, List<Member>> groups = new LinkedHashMap<>();
        for (LockInfo info : locks) {
            Optional<Member> m = member(info);
            if (m.isEmpty()) {
                rows.add(info);
            } else {
                groups.computeIfAbsent(m.get().semaphore(), name -> {
                    rows.add(name);
                    return new ArrayList<>();
                }).add(m.get());
            }
        }
        Table table = LockViews.empty();
        for (Object row : rows) {
            if (row instanceof LockInfo i) {
                LockViews.row(table, i);
                continue;
            }
            String name = (String) row;
            List<Member> members = new ArrayList<>(groups.get(name));
            members.sort(Comparator.comparingInt((Member m) -> m.isGate() ? Integer.MAX_VALUE : m.permit()));
            List<Member> permits = members.stream().filter(m -> !m.isGate()).toList();
            Semaphore group = new Semaphore(name, permits, null);
            List<String> holders = group.holders();
            table.row(name, group.isReadWriteLock() ? readWriteShort(group) : permits.size() + (permits.size() == 1 ? " permit" : " permits"),
                    holders.size() == 1 ? holders.get(0) : holders.isEmpty() ? null : holders.size() + " holders", null, null, null);
            for (Member m : members) {
                LockInfo i = m.info();
                table.row("  " + (m.isGate() ? GATE : PERMIT + m.permit()), m.isGate() ? "acquiring" : LockViews.heldAs(i), i.holder(), i.ownerId(),
                        i.fencingToken(), LockViews.leaseLeft(i.leaseRemaining()));
            }
        }
        return table;
    }
}
