package io.holdfast.testkit.torture;

import io.holdfast.testkit.torture.TortureResult.FaultOutcome;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import io.holdfast.testkit.torture.TortureResult.HoldOverlap;
import io.holdfast.testkit.torture.TortureResult.RegisterOutcome;
import io.holdfast.testkit.torture.TortureResult.StaleWrite;
import io.holdfast.testkit.torture.TortureResult.TokenViolation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a merged history and finds what went wrong:
 * <ul>
 *   <li><b>mutual exclusion</b>: a hold runs from its acquire's completion to its release's invocation (or
 *       the death of its process). Two holds of different processes that overlap, neither of them ever
 *       reported lost, are a violation: both clients were entitled to believe they alone held the lock.
 *       Overlaps in which one hold was reported lost (its listener fired, or its release said so) are
 *       counted apart: the contract allows them, and the fencing check must catch what they write. With N
 *       permits of a semaphore, N holds may overlap and a hold granted beside N others is over N ({@link PermitCheck});</li>
 *   <li><b>fencing tokens</b>: an acquisition that began after another completed must get a greater token,
 *       and no two acquisitions share one;</li>
 *   <li><b>lost updates</b>, for each counter: applied writes the final value does not reflect, and the
 *       individual writes that did not advance the counter;</li>
 *   <li><b>availability</b>: successful acquisitions per second.</li>
 * </ul>
 */
final class Checker {
    private Checker() {
    }

    /** A hold as the history shows it. */
    static final class Span {
        final int client;
        final int incarnation;
        int thread;
        /** What the acquire recorded: {@code read} or {@code write} (a read-write lock), {@code leader}, or empty. */
        String kind = "";
        final long token;
        final long invokeMicros;
        final long okMicros;
        long releaseInvokeMicros;
        String releaseOutcome = "";
        long lostMicros;
        String lostReason = "";
        long endMicros;
        boolean endedByDeath;

        Span(int client, int incarnation, long token, long invokeMicros, long okMicros) {
            this.client = client;
            this.incarnation = incarnation;
            this.token = token;
            this.invokeMicros = invokeMicros;
            this.okMicros = okMicros;
        }

        String name() {
            return client + "." + incarnation + (thread == 0 ? "" : "#" + thread);
        }

        boolean sameActor(Span o) {
            return client == o.client && incarnation == o.incarnation && thread == o.thread;
        }

        boolean reportedLost() {
            return lostMicros != 0 || releaseOutcome.equals(Event.FAIL);
        }
    }

    /** Everything the reports need. */
    record Analysis(String store, TortureSettings settings, long startMicros, long endMicros, long originMicros,
                    List<FaultWindow> faults, List<ClientLife> lives, List<Span> holds, long acquisitions, long acquireTimeouts,
                    long acquireFailures, long holdsReportedLost, List<HoldOverlap> violations, List<HoldOverlap> unreportedLosses,
                    List<HoldOverlap> staleOverlaps,
                    List<TokenViolation> tokenViolations, List<RegisterOutcome> registers, List<FaultOutcome> perFault,
                    int[] acquisitionsPerSecond, List<Event> rejectedWrites) {

        TortureResult toResult(java.nio.file.Path text, java.nio.file.Path html) {
            return new TortureResult(store, settings, startMicros, endMicros, faults, acquisitions, acquireTimeouts,
                    acquireFailures, holdsReportedLost, violations, unreportedLosses, staleOverlaps, tokenViolations, registers, perFault,
                    acquisitionsPerSecond, text, html);
        }
    }

    static Analysis check(String store, TortureSettings settings, long startMicros, long endMicros, List<Event> events,
                          List<ClientLife> lives, List<FaultWindow> faults, long[] finalValues) {
        Map<String, ClientLife> lifeByName = new HashMap<>();
        lives.forEach(l -> lifeByName.put(l.name(), l));

        // Per actor (a process, or one thread of a process that runs several): walk its events in order and build its holds.
        Map<String, List<Event>> byProcess = new LinkedHashMap<>();
        List<Event> validitySamples = new ArrayList<>();
        for (Event e : events) {
            byProcess.computeIfAbsent(e.actor(), k -> new ArrayList<>()).add(e);
            if (e.is(Event.OP_VALID, Event.OK)) {
                validitySamples.add(e);
            }
        }
        List<Span> holds = new ArrayList<>();
        long timeouts = 0;
        long failures = 0;
        Map<Register.Kind, long[]> writeCounts = new HashMap<>(); // ok, rejected, info, open invokes
        Map<Register.Kind, List<Event>> okWrites = new HashMap<>();
        Map<Register.Kind, List<Event>> rejectedWrites = new HashMap<>();
        for (Register.Kind k : Register.Kind.ALL) {
            writeCounts.put(k, new long[4]);
            okWrites.put(k, new ArrayList<>());
            rejectedWrites.put(k, new ArrayList<>());
        }
        for (Map.Entry<String, List<Event>> entry : byProcess.entrySet()) {
            List<Event> mine = entry.getValue();
            long pendingInvoke = 0;
            Span current = null;
            Map<Long, Span> byToken = new HashMap<>();
            Map<Register.Kind, Event> openWrite = new HashMap<>();
            for (Event e : mine) {
                switch (e.op()) {
                    case Event.OP_ACQUIRE -> {
                        switch (e.type()) {
                            case Event.INVOKE -> pendingInvoke = e.micros();
                            case Event.OK -> {
                                current = new Span(e.client(), e.incarnation(), e.token(), pendingInvoke, e.micros());
                                current.thread = e.thread();
                                current.kind = e.detail();
                                holds.add(current);
                                byToken.put(e.token(), current);
                            }
                            default -> {
                                if (e.detail().equals("timeout")) {
                                    timeouts++;
                                } else {
                                    failures++;
                                }
                            }
                        }
                    }
                    case Event.OP_LOST -> {
                        Span s = byToken.get(e.token());
                        if (s != null && s.lostMicros == 0) {
                            s.lostMicros = e.micros();
                            s.lostReason = e.detail();
                        }
                    }
                    case Event.OP_CLAIM -> {
                        if (e.type().equals(Event.FAIL)) {
                            // The FENCED guard acted at the claim: the write that would have followed is refused.
                            writeCounts.get(Register.Kind.FENCED)[1]++;
                            rejectedWrites.get(Register.Kind.FENCED).add(e);
                        }
                    }
                    case Event.OP_RELEASE -> {
                        Span s = byToken.get(e.token());
                        if (s != null) {
                            if (e.type().equals(Event.INVOKE)) {
                                s.releaseInvokeMicros = e.micros();
                                s.endMicros = e.micros();
                            } else {
                                s.releaseOutcome = e.type();
                                if (e.type().equals(Event.FAIL) && s.lostReason.isEmpty()) {
                                    s.lostReason = e.detail();
                                }
                                if (s == current) {
                                    current = null;
                                }
                            }
                        }
                    }
                    default -> {
                        for (Register.Kind k : Register.Kind.ALL) {
                            if (e.op().equals(k.writeOp())) {
                                long[] c = writeCounts.get(k);
                                switch (e.type()) {
                                    case Event.INVOKE -> openWrite.put(k, e);
                                    case Event.OK -> {
                                        c[0]++;
                                        okWrites.get(k).add(e);
                                        openWrite.remove(k);
                                    }
                                    case Event.FAIL -> {
                                        c[1]++;
                                        rejectedWrites.get(k).add(e);
                                        openWrite.remove(k);
                                    }
                                    default -> {
                                        c[2]++;
                                        openWrite.remove(k);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            // A write invoked but never completed: the process died in it, so it may or may not have landed.
            openWrite.keySet().forEach(k -> writeCounts.get(k)[3]++);
            // A hold never released ended with its process.
            ClientLife life = lifeByName.get(mine.get(0).client() + "." + mine.get(0).incarnation());
            long lastEvent = mine.get(mine.size() - 1).micros();
            for (Span s : byToken.values()) {
                if (s.releaseInvokeMicros == 0) {
                    s.endedByDeath = true;
                    s.endMicros = life != null && life.endMicros() != 0 ? life.endMicros() : Math.max(lastEvent, endMicros);
                }
            }
        }
        holds.sort(Comparator.comparingLong(s -> s.okMicros));

        List<HoldOverlap> violations = new ArrayList<>();
        List<HoldOverlap> unreported = new ArrayList<>();
        List<HoldOverlap> stale = new ArrayList<>();
        ExclusionCheck.overlaps(holds, settings, faults, settings.lease().toNanos() / 1_000, violations, unreported, stale);
        List<HoldOverlap> found = new ArrayList<>(violations);
        found.addAll(unreported);
        violations.addAll(ExclusionCheck.validWhileOthersHeld(holds, validitySamples, settings, found));
        violations.sort(Comparator.comparingLong(HoldOverlap::startMicros));
        List<TokenViolation> tokenViolations = tokens(holds);

        List<RegisterOutcome> registers = new ArrayList<>();
        for (Register.Kind k : Register.Kind.ALL) {
            long[] c = writeCounts.get(k);
            long indeterminate = c[2] + c[3];
            long finalValue = finalValues[k.ordinal()];
            registers.add(new RegisterOutcome(k.label, k.description, c[0], c[1], indeterminate, finalValue,
                    Math.max(0, c[0] - finalValue), Math.max(0, finalValue - c[0] - indeterminate), staleWrites(okWrites.get(k))));
        }

        long lost = holds.stream().filter(Span::reportedLost).count();
        long slack = settings.lease().toNanos() / 1_000 + 1_000_000;
        List<FaultOutcome> perFault = new ArrayList<>();
        List<FaultWindow> injected = faults.stream().filter(f -> f.skipReason() == null).toList();
        for (int i = 0; i < injected.size(); i++) {
            FaultWindow w = injected.get(i);
            long from = w.startMicros();
            long to = i + 1 < injected.size() ? Math.min(w.endMicros() + slack, injected.get(i + 1).startMicros()) : w.endMicros() + slack;
            Map<String, Integer> rejected = new LinkedHashMap<>();
            Map<String, Integer> staleByRegister = new LinkedHashMap<>();
            for (int r = 0; r < registers.size(); r++) {
                Register.Kind k = Register.Kind.ALL.get(r);
                rejected.put(k.label, (int) rejectedWrites.get(k).stream().filter(e -> within(e.micros(), from, to)).count());
                staleByRegister.put(k.label, (int) registers.get(r).staleWrites().stream().filter(s -> within(s.micros(), from, to)).count());
            }
            perFault.add(new FaultOutcome(w,
                    (int) holds.stream().filter(s -> s.reportedLost() && within(lossTime(s), from, to)).count(),
                    (int) violations.stream().filter(o -> within(o.startMicros(), from, to)).count(),
                    (int) unreported.stream().filter(o -> within(o.startMicros(), from, to)).count(),
                    (int) stale.stream().filter(o -> within(o.startMicros(), from, to)).count(),
                    (int) tokenViolations.stream().filter(t -> within(t.micros(), from, to)).count(),
                    rejected, staleByRegister));
        }

        long origin = events.isEmpty() ? startMicros : Math.min(startMicros, events.get(0).micros());
        int seconds = (int) Math.max(1, (endMicros - startMicros + 999_999) / 1_000_000);
        int[] perSecond = new int[seconds];
        for (Span s : holds) {
            long i = (s.okMicros - startMicros) / 1_000_000;
            if (s.okMicros >= startMicros && i < seconds) {
                perSecond[(int) i]++;
            }
        }
        List<Event> rejected = new ArrayList<>();
        rejectedWrites.values().forEach(rejected::addAll);
        return new Analysis(store, settings, startMicros, endMicros, origin, faults, lives, holds, holds.size(), timeouts,
                failures, lost, violations, unreported, stale, tokenViolations, registers, perFault, perSecond, rejected);
    }

    static long lossTime(Span s) {
        return s.lostMicros != 0 ? s.lostMicros : s.endMicros;
    }

    private static boolean within(long t, long from, long to) {
        return t >= from && t <= to;
    }

    /**
     * Whether the earlier hold {@code a} had its process frozen (pause) or cut off (partition, follower or one-way partition) by a fault for
     * at least a lease of the hold's time, and the later hold {@code b} was acquired at least a lease after
     * that began. The client could not renew meanwhile, so the store was right to free the lock, and by the
     * contract the client's local deadline had passed before: the overlap is the client's failure to report
     * its loss, not the store's failure to exclude.
     */
    private static final java.util.Set<Fault> CUTTING_OFF = java.util.EnumSet.of(Fault.PAUSE, Fault.PARTITION, Fault.FOLLOWER_PARTITION,
            Fault.ONE_WAY_PARTITION);

    static boolean frozenOrCutOffPastLease(Span a, Span b, List<FaultWindow> faults, long leaseMicros) {
        String client = "client " + a.client;
        for (FaultWindow w : faults) {
            if (w.skipReason() != null || !CUTTING_OFF.contains(w.fault())
                    || !w.target().equals(client)) {
                continue;
            }
            long from = Math.max(w.startMicros(), a.okMicros);
            long to = Math.min(w.endMicros(), a.endMicros);
            if (to - from >= leaseMicros && b.okMicros >= from + leaseMicros) {
                return true;
            }
        }
        return false;
    }

    /**
     * Tokens in real-time order: an acquisition B that began after acquisition A completed must have a
     * greater token than A (acquisitions that ran concurrently may come in either order); tokens are unique.
     */
    static List<TokenViolation> tokens(List<Span> holds) {
        List<TokenViolation> found = new ArrayList<>();
        List<Span> byOk = new ArrayList<>(holds);
        byOk.sort(Comparator.comparingLong(s -> s.okMicros));
        List<Span> byInvoke = new ArrayList<>(holds);
        byInvoke.sort(Comparator.comparingLong(s -> s.invokeMicros));
        Span highest = null;
        int next = 0;
        for (Span b : byInvoke) {
            while (next < byOk.size() && byOk.get(next).okMicros < b.invokeMicros) {
                Span a = byOk.get(next++);
                if (highest == null || a.token > highest.token) {
                    highest = a;
                }
            }
            if (highest != null && b.token <= highest.token) {
                found.add(new TokenViolation(b.name(), b.token, b.okMicros, highest.name(), highest.token,
                        "token " + b.token + " is not above token " + highest.token + " of an acquisition completed before this one began"));
            }
        }
        Map<Long, Span> seen = new HashMap<>();
        for (Span s : byOk) {
            Span other = seen.putIfAbsent(s.token, s);
            if (other != null) {
                found.add(new TokenViolation(s.name(), s.token, s.okMicros, other.name(), other.token,
                        "token " + s.token + " was issued twice"));
            }
        }
        found.sort(Comparator.comparingLong(TokenViolation::micros));
        return found;
    }

    /** Applied writes, in completion order, that did not go above the highest value written before them. */
    static List<StaleWrite> staleWrites(List<Event> okWrites) {
        List<Event> sorted = new ArrayList<>(okWrites);
        sorted.sort(Comparator.comparingLong(Event::micros));
        List<StaleWrite> found = new ArrayList<>();
        long highest = 0;
        for (Event e : sorted) {
            if (e.value() <= highest) {
                found.add(new StaleWrite(e.client() + "." + e.incarnation(), e.token(), e.value(), highest, e.micros()));
            }
            highest = Math.max(highest, e.value());
        }
        return found;
    }
}
