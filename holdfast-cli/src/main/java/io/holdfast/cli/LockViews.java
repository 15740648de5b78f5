package io.holdfast.cli;

import io.holdfast.LockInfo;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** How {@code status} and {@code list} show locks, to people and to programs. */
final class LockViews {
    private LockViews() {
    }

    static Table table(List<LockInfo> locks) {
        Table table = empty();
        for (LockInfo info : locks) {
            row(table, info);
        }
        return table;
    }

    /** A table of locks without rows: name, held, holder, owner id, token, lease left. */
    static Table empty() {
        return new Table("NAME", "HELD", "HOLDER", "OWNER ID", "TOKEN", "LEASE LEFT").alignRight(4, 5);
    }

    /** Adds {@code info} to a table with {@link #table}'s columns. */
    static void row(Table table, LockInfo info) {
        table.row(info.name(), heldAs(info), info.holder(), info.ownerId(), info.fencingToken(),
                info.held() ? leaseLeft(info.leaseRemaining()) : null);
    }

    /**
     * The HELD column: {@code no}, or what the hold is for as its owner id marks it: {@code leader} (its token is the
     * term), {@code read} or {@code write} (a permit of a read-write lock), else {@code yes}.
     */
    static String heldAs(LockInfo info) {
        if (!info.held()) {
            return "no";
        }
        return switch (info.role()) {
            case LEADER -> "leader";
            case READER -> "read";
            case WRITER -> "write";
            case LOCK -> "yes";
        };
    }

    /** {@code status}'s line on a leader's hold: who leads, in which term. */
    static String leaderLine(LockInfo info) {
        return "leader of '" + info.name() + "': " + info.holder() + ", term " + info.fencingToken() + " (the hold's fencing token), "
                + "lease left " + leaseLeft(info.leaseRemaining());
    }

    static Json.Obj json(LockInfo info) {
        return json(info, null);
    }

    /** With {@code known} (for status) second, if not null. */
    static Json.Obj json(LockInfo info, Boolean known) {
        Json.Obj obj = Json.object().put("name", info.name());
        if (known != null) {
            obj.put("known", known);
        }
        return obj
                .put("held", info.held())
                .put("role", info.held() ? info.role().name().toLowerCase(Locale.ROOT) : null)
                .put("holder", info.holder())
                .put("ownerId", info.ownerId())
                .put("fencingToken", info.fencingToken())
                .put("leaseRemainingMillis", info.leaseRemaining() == null ? null : info.leaseRemaining().toMillis());
    }

    /** {@code 850ms}, {@code 27.3s}, {@code 4m05s}, {@code 2h10m}; {@code -} if unknown. */
    static String leaseLeft(Duration d) {
        if (d == null) {
            return "-";
        }
        long ms = Math.max(0, d.toMillis());
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
    }
}
