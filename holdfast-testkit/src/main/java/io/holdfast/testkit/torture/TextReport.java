package io.holdfast.testkit.torture;

import io.holdfast.Durations;
import io.holdfast.Uris;
import io.holdfast.testkit.torture.TortureResult.FaultOutcome;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import io.holdfast.testkit.torture.TortureResult.HoldOverlap;
import io.holdfast.testkit.torture.TortureResult.RegisterOutcome;
import io.holdfast.testkit.torture.TortureResult.StaleWrite;
import io.holdfast.testkit.torture.TortureResult.TokenViolation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The plain-text summary of a run: what was done, what was seen, and a verdict per check. */
final class TextReport {
    private static final int LISTED = 10;

    private TextReport() {
    }

    static String render(Checker.Analysis a, Path textFile, Path htmlFile) {
        StringBuilder b = new StringBuilder();
        TortureSettings s = a.settings();
        line(b, "Holdfast torture report");
        line(b, "store:    " + a.store() + "  (" + Uris.redact(s.uri()) + ")");
        line(b, "run:      " + s.clients() + " client processes, " + Durations.format(s.duration()) + ", lease "
                + Durations.format(s.lease()) + ", pause between read and write up to " + Durations.format(s.think())
                + ", acquire wait " + Durations.format(s.acquireWait()) + ", seed " + s.seed()
                + (s.permits() > 1 ? "; each round takes 1 of " + s.permits() + " permits of a semaphore, not the lock" : "")
                + (s.recipe() == TortureSettings.Recipe.READ_WRITE ? "; each round takes a read of a read-write lock, or one in three its "
                        + "write, not the lock" : "")
                + (s.recipe() == TortureSettings.Recipe.LEADER ? "; each round campaigns for leader of an election and resigns at its end" : ""));
        line(b, "faults:   " + (s.faults().isEmpty() ? "none" : s.faults().stream().map(Fault::label).collect(Collectors.joining(","))));
        if (!s.clockSkews().isEmpty()) {
            line(b, "clocks:   " + clocks(s));
        }
        line(b, "register: " + (s.registerUrl() == null ? "SQLite file register.db in the report directory" : Uris.redact(s.registerUrl())));
        line(b, "");

        line(b, "Faults (times from the start of the run):");
        List<FaultWindow> injected = a.faults().stream().filter(f -> f.skipReason() == null).toList();
        if (injected.isEmpty()) {
            line(b, "  none injected");
        } else {
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"at", "fault", "target", "held token", "lasted", "what"});
            for (FaultWindow f : injected) {
                rows.add(new String[] {seconds(f.startMicros() - a.startMicros()), f.fault().label(), f.target(),
                        f.heldToken() == 0 ? "-" : Long.toString(f.heldToken()), seconds(f.endMicros() - f.startMicros()), f.detail()});
            }
            table(b, rows, "  ");
        }
        for (FaultWindow f : a.faults()) {
            if (f.skipReason() != null) {
                line(b, "  " + f.fault().label() + " not injected: " + f.skipReason());
            }
        }
        line(b, "");

        int[] perSecond = a.acquisitionsPerSecond();
        int[] sorted = perSecond.clone();
        Arrays.sort(sorted);
        List<String> idle = new ArrayList<>();
        for (int i = 0; i < perSecond.length; i++) {
            if (perSecond[i] == 0) {
                idle.add(i + "s");
            }
        }
        line(b, "Acquisitions: " + a.acquisitions() + " succeeded, " + a.acquireTimeouts() + " timed out, " + a.acquireFailures()
                + " failed with an error; " + a.holdsReportedLost() + " holds were reported lost to their client.");
        line(b, "Availability: successful acquisitions per second: min " + sorted[0] + ", median " + sorted[sorted.length / 2]
                + ", max " + sorted[sorted.length - 1] + "; seconds with none: "
                + (idle.isEmpty() ? "none" : idle.size() + " (" + String.join(", ", idle.subList(0, Math.min(20, idle.size())))
                    + (idle.size() > 20 ? ", ..." : "") + ")"));
        line(b, "");

        String most = s.recipe() == TortureSettings.Recipe.READ_WRITE ? "write overlapped another hold"
                : s.permits() == 1 ? "two holds overlapped" : "more than " + s.permits() + " holds were in force at once";
        if (a.violations().isEmpty()) {
            line(b, capitalized(exclusion(s)) + ": OK, no " + most + " unless one was reported lost (" + a.holds().size() + " holds checked).");
        } else {
            line(b, s.permits() == 1 ? capitalized(exclusion(s)) + ": VIOLATED, " + a.violations().size() + " overlaps of holds neither of which was "
                    + "ever reported lost, with no pause or partition to explain them:"
                    : capitalized(exclusion(s)) + ": VIOLATED, " + a.violations().size() + " holds granted beside " + s.permits()
                    + " others, none of them ever reported lost, with no pause or partition to explain it (each with the latest of those):");
            for (HoldOverlap o : a.violations().subList(0, Math.min(LISTED, a.violations().size()))) {
                line(b, "  " + overlap(o, a.startMicros()));
            }
            more(b, a.violations().size());
        }
        if (a.unreportedLosses().isEmpty()) {
            line(b, "Lost-hold reporting: OK, no holder frozen or cut off past its lease went on unaware of its loss.");
        } else {
            line(b, "Lost-hold reporting: VIOLATED, " + a.unreportedLosses().size() + " overlaps in which the earlier holder had been "
                    + "frozen or cut off for a lease or more (so the store rightly freed the lock) and was never told it lost its hold "
                    + "(no listener call, its release returned normally):");
            for (HoldOverlap o : a.unreportedLosses().subList(0, Math.min(LISTED, a.unreportedLosses().size()))) {
                line(b, "  " + overlap(o, a.startMicros()));
            }
            more(b, a.unreportedLosses().size());
        }
        java.util.Set<String> lostHolds = a.holds().stream().filter(Checker.Span::reportedLost).map(sp -> sp.name() + "#" + sp.token)
                .collect(Collectors.toSet());
        long lostInvolved = a.staleOverlaps().stream().flatMap(o -> java.util.stream.Stream.of(o.clientA() + "#" + o.tokenA(), o.clientB() + "#" + o.tokenB()))
                .filter(lostHolds::contains).distinct().count();
        line(b, "  Overlaps with a hold that was later reported lost: " + a.staleOverlaps().size() + " (involving " + lostInvolved
                + " lost holds). The contract allows them (the loser is told); only a fencing check keeps their writes out.");
        line(b, "");

        if (a.tokenViolations().isEmpty()) {
            line(b, "Fencing tokens: OK, unique and increasing in real-time order (" + a.acquisitions() + " acquisitions checked).");
        } else {
            line(b, "Fencing tokens: VIOLATED, " + a.tokenViolations().size() + " times:");
            for (TokenViolation t : a.tokenViolations().subList(0, Math.min(LISTED, a.tokenViolations().size()))) {
                line(b, "  at " + seconds(t.micros() - a.startMicros()) + " client " + t.client() + ": " + t.what() + " (client " + t.earlierClient() + ")");
            }
            more(b, a.tokenViolations().size());
        }
        line(b, "");

        line(b, "Counters (every write is the value read plus one; without lost updates the final value equals the applied writes):");
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"counter", "applied", "rejected", "unknown", "final", "lost updates", "guard"});
        for (RegisterOutcome r : a.registers()) {
            rows.add(new String[] {r.label(), Long.toString(r.writesOk()), Long.toString(r.writesRejected()),
                    Long.toString(r.writesIndeterminate()), Long.toString(r.finalValue()), Long.toString(r.lostUpdates()), r.guard()});
        }
        table(b, rows, "  ");
        for (RegisterOutcome r : a.registers()) {
            if (r.lostUpdates() == 0 && r.staleWrites().isEmpty() && r.unexplained() == 0) {
                line(b, "  " + r.label() + ": no lost update seen.");
                continue;
            }
            line(b, "  " + r.label() + ": " + r.lostUpdates() + " lost updates (" + r.writesOk() + " applied writes, final value "
                    + r.finalValue() + "); " + r.staleWrites().size() + " writes did not advance the counter"
                    + (r.staleWrites().isEmpty() ? "." : ", for example:"));
            for (StaleWrite w : r.staleWrites().subList(0, Math.min(3, r.staleWrites().size()))) {
                line(b, "    at " + seconds(w.micros() - a.startMicros()) + " client " + w.client() + " (token " + w.token() + ") wrote "
                        + w.value() + " after " + w.highestBefore() + " had been written");
            }
            if (r.unexplained() > 0) {
                line(b, "    UNEXPLAINED: the final value is " + r.unexplained() + " above every write that could have made it: the history is incomplete.");
            }
        }
        line(b, "");

        if (!a.perFault().isEmpty()) {
            line(b, "Per fault (the fault's window plus one lease and a second after it):");
            List<String[]> pf = new ArrayList<>();
            pf.add(new String[] {"at", "fault", "target", "holds lost", "violations", "unreported losses", "stale overlaps", "token violations",
                    "rejected writes (fenced/write-fenced)", "lost-update witnesses (fenced/write-fenced/unguarded)"});
            for (FaultOutcome o : a.perFault()) {
                pf.add(new String[] {seconds(o.window().startMicros() - a.startMicros()), o.window().fault().label(), o.window().target(),
                        Integer.toString(o.holdsLost()), Integer.toString(o.violations()), Integer.toString(o.unreportedLosses()),
                        Integer.toString(o.staleOverlaps()),
                        Integer.toString(o.tokenViolations()),
                        o.rejectedWrites().get("fenced") + "/" + o.rejectedWrites().get("write-fenced"),
                        o.staleWrites().get("fenced") + "/" + o.staleWrites().get("write-fenced") + "/" + o.staleWrites().get("unguarded")});
            }
            table(b, pf, "  ");
            line(b, "");
        }

        line(b, "Verdict:");
        RegisterOutcome fenced = a.registers().get(0);
        boolean fencedOk = fenced.lostUpdates() == 0 && fenced.staleWrites().isEmpty() && fenced.unexplained() == 0;
        line(b, "  " + (fencedOk ? "OK" : "VIOLATED") + "  with the fencing guard: " + fenced.lostUpdates() + " lost updates"
                + (fenced.writesRejected() > 0 ? " (" + fenced.writesRejected() + " stale writes or claims rejected by the fence)" : ""));
        line(b, "  " + (a.violations().isEmpty() ? "OK" : "VIOLATED") + "  " + exclusion(s) + ": " + a.violations().size()
                + (s.permits() == 1 ? " overlaps of valid holds" : " times more than " + s.permits() + " valid holds"));
        line(b, "  " + (a.unreportedLosses().isEmpty() ? "OK" : "VIOLATED") + "  lost-hold reporting: " + a.unreportedLosses().size()
                + " overlaps with a holder never told of its loss");
        line(b, "  " + (a.tokenViolations().isEmpty() ? "OK" : "VIOLATED") + "  fencing tokens: " + a.tokenViolations().size() + " violations");
        for (RegisterOutcome r : a.registers().subList(1, a.registers().size())) {
            line(b, "  " + (r.lostUpdates() == 0 && r.staleWrites().isEmpty() ? "none seen" : "SEEN") + "  " + r.label() + ": "
                    + r.lostUpdates() + " lost updates, " + r.staleWrites().size() + " stale writes"
                    + (s.sharedHolds() ? " (expected: " + (s.permits() > 1 ? s.permits() + " holders" : "readers") + " may write at once)" : ""));
        }
        // With permits, holders overlap by design: only the claim-fenced counter must stay exact.
        boolean clean = fencedOk && a.violations().isEmpty() && a.unreportedLosses().isEmpty() && a.tokenViolations().isEmpty()
                && a.registers().stream().allMatch(r -> r.unexplained() == 0
                        && (s.sharedHolds() || (r.lostUpdates() == 0 && r.staleWrites().isEmpty())));
        line(b, clean ? "  This run saw no anomaly of any kind it checks for."
                : "  Anomalies were seen; the lines above say which, when and by whom.");
        line(b, "");
        line(b, "Files: " + textFile + ", " + htmlFile + " (timeline), history.tsv (every event), logs/ (client stderr).");
        return b.toString();
    }

    static String overlap(HoldOverlap o, long origin) {
        return "client " + o.clientA() + " (token " + o.tokenA() + ") and client " + o.clientB() + " (token " + o.tokenB() + ") from "
                + seconds(o.startMicros() - origin) + " for " + String.format(Locale.ROOT, "%.1f ms", (o.endMicros() - o.startMicros()) / 1e3);
    }

    /**
     * What exclusion the run checks: {@code mutual exclusion}, {@code at most 2 holders (2 permits)}, {@code no writer
     * with anyone (read-write lock)} or {@code one leader at a time}.
     */
    static String exclusion(TortureSettings s) {
        return switch (s.recipe()) {
            case READ_WRITE -> "no writer with anyone (read-write lock)";
            case LEADER -> "one leader at a time";
            case LOCK -> s.permits() == 1 ? "mutual exclusion" : "at most " + s.permits() + " holders (" + s.permits() + " permits)";
        };
    }

    private static String capitalized(String text) {
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    /** The skewed clients' wall clocks, for the reports' header. */
    static String clocks(TortureSettings s) {
        return s.clockSkews().entrySet().stream().map(e -> "client " + e.getKey() + "'s wall clock " + e.getValue().abs().toSeconds() + " s "
                + (e.getValue().isNegative() ? "behind" : "ahead")).collect(Collectors.joining(", "))
                + " (libfaketime; histories keep the run's time line, from the machine's monotonic clock)";
    }

    static String seconds(long micros) {
        return String.format(Locale.ROOT, "%.1fs", micros / 1e6);
    }

    private static void more(StringBuilder b, int total) {
        if (total > LISTED) {
            line(b, "  ... and " + (total - LISTED) + " more (see the HTML report)");
        }
    }

    private static void line(StringBuilder b, String text) {
        b.append(text).append('\n');
    }

    private static void table(StringBuilder b, List<String[]> rows, String indent) {
        int[] widths = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                widths[i] = Math.max(widths[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder l = new StringBuilder(indent);
            for (int i = 0; i < r.length; i++) {
                l.append(i == r.length - 1 ? r[i] : String.format(Locale.ROOT, "%-" + widths[i] + "s  ", r[i]));
            }
            line(b, l.toString().stripTrailing());
        }
    }
}
