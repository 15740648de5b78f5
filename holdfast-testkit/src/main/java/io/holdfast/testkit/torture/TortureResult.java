package io.holdfast.testkit.torture;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What a torture run saw, as the checker found it in the merged histories. Every number comes from the
 * run's own records; nothing is assumed. Times are microseconds since the epoch.
 *
 * @param store the store as its client describes itself
 * @param settings what the run did
 * @param startMicros when every client was ready and the clock of the run started
 * @param endMicros when the clients were told to stop
 * @param faults the faults injected, in order, and those skipped (with the reason)
 * @param acquisitions successful acquisitions
 * @param acquireTimeouts acquisitions that gave up after the client's wait
 * @param acquireFailures acquisitions that failed with an error (store unreachable...)
 * @param holdsReportedLost holds whose loss the client was told of (listener, or release said so)
 * @param violations overlapping holds neither of which was ever reported lost, and no fault explains: mutual
 *        exclusion failed
 * @param unreportedLosses overlaps of holds never reported lost in which the earlier holder had been frozen
 *        (pause) or cut off (partition) for at least a lease when the later one acquired: the store rightly
 *        freed the lock, but the earlier holder was never told it had lost it (its release returned normally),
 *        which breaks the contract's "lost holds are loud"
 * @param staleOverlaps overlaps in which one hold was later reported lost: what fencing has to catch
 * @param tokenViolations acquisitions whose token was not above that of an acquisition completed before
 *        they began, or that repeated another's token
 * @param registers the three counters, fenced, write-fenced and unguarded
 * @param perFault what happened inside each injected fault's window (plus its aftermath of one lease)
 * @param acquisitionsPerSecond successful acquisitions in each second of the run
 * @param textReport the text report on disk
 * @param htmlReport the HTML report on disk
 */
public record TortureResult(String store, TortureSettings settings, long startMicros, long endMicros,
                            List<FaultWindow> faults, long acquisitions, long acquireTimeouts, long acquireFailures,
                            long holdsReportedLost, List<HoldOverlap> violations, List<HoldOverlap> unreportedLosses,
                            List<HoldOverlap> staleOverlaps,
                            List<TokenViolation> tokenViolations, List<RegisterOutcome> registers,
                            List<FaultOutcome> perFault, int[] acquisitionsPerSecond, Path textReport, Path htmlReport) {

    /** The outcome of the counter with this label ({@code fenced}, {@code write-fenced}, {@code unguarded}). */
    public RegisterOutcome register(String label) {
        return registers.stream().filter(r -> r.label().equals(label)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no register " + label + "; have fenced, write-fenced, unguarded"));
    }

    /** Faults actually injected (not skipped). */
    public List<FaultWindow> injected() {
        return faults.stream().filter(f -> f.skipReason() == null).toList();
    }

    /**
     * One fault: injected during [start, end], or skipped.
     *
     * @param fault which fault
     * @param startMicros when it began
     * @param endMicros when it ended (the process resumed, the store answered again, the proxy healed...)
     * @param target what it hit: {@code client 3}, {@code store}
     * @param heldToken the token the target client held when the fault began (from its own report), or 0
     * @param detail how: partition mode, pause length, restart time
     * @param skipReason null if injected; else why it could not be
     * @param sides for a partition in a topology, which member was on which side ({@link io.holdfast.testkit.torture.net.Partition#sides()},
     *        the cut-off side first: {@code c2,s1 | c1,c3,s2,s3}; one way, the sending side first: {@code s1,s2,s3 -> c2}); "" otherwise
     */
    public record FaultWindow(Fault fault, long startMicros, long endMicros, String target, long heldToken, String detail,
                              String skipReason, String sides) {
        /** A fault without partition sides. */
        public FaultWindow(Fault fault, long startMicros, long endMicros, String target, long heldToken, String detail, String skipReason) {
            this(fault, startMicros, endMicros, target, heldToken, detail, skipReason, "");
        }

        /**
         * The client numbers cut off ({@code c2} is client 2): those on the first side of a two-way partition
         * ({@code c2,s1 | c1,c3,s2,s3}), those on either side of a one-way one ({@code s1,s2,s3 -> c2}: a one-way
         * partition singles out clients on one side); empty if none.
         */
        public java.util.List<Integer> cutOffClients() {
            if (sides.isEmpty()) {
                return java.util.List.of();
            }
            String[] parts = sides.split(" ");
            String members = oneWay() && parts.length == 3 ? parts[0] + "," + parts[2] : parts[0];
            java.util.List<Integer> found = new java.util.ArrayList<>();
            for (String m : members.split(",")) {
                if (m.matches("c\\d+")) {
                    found.add(Integer.parseInt(m.substring(1)));
                }
            }
            return found;
        }

        /** Whether the partition dropped packets one way only ({@code A -> B}: from A to B). */
        public boolean oneWay() {
            return sides.contains(" -> ");
        }
    }

    /**
     * Two holds of different client processes that overlapped in time.
     *
     * @param clientA first client, {@code C.I} (client C, incarnation I)
     * @param tokenA its token
     * @param clientB second client
     * @param tokenB its token
     * @param startMicros start of the overlap
     * @param endMicros end of the overlap
     */
    public record HoldOverlap(String clientA, long tokenA, String clientB, long tokenB, long startMicros, long endMicros) {
    }

    /**
     * An acquisition whose token broke monotonicity.
     *
     * @param client the client, {@code C.I}
     * @param token its token
     * @param micros when its acquire completed
     * @param earlierClient the acquisition it should have been above
     * @param earlierToken that acquisition's token
     * @param what what was wrong
     */
    public record TokenViolation(String client, long token, long micros, String earlierClient, long earlierToken, String what) {
    }

    /**
     * One counter at the end of the run.
     *
     * @param label {@code fenced}, {@code write-fenced} or {@code unguarded}
     * @param guard how its writes are guarded
     * @param writesOk writes that were applied
     * @param writesRejected writes its guard refused (for fenced: claims refused, so the write was never sent, plus
     *        writes refused; always 0 for unguarded)
     * @param writesIndeterminate writes whose outcome is unknown (the client died or the database erred mid-call)
     * @param finalValue the counter's value at the end (it starts at 0; every write is read + 1)
     * @param lostUpdates applied writes the final value does not reflect: {@code max(0, writesOk - finalValue)}
     * @param unexplained increments beyond every write that could have made them:
     *        {@code max(0, finalValue - writesOk - writesIndeterminate)}; nonzero means the history is wrong
     * @param staleWrites applied writes that did not advance the counter past a value already written
     *        before them: the individual lost updates, with their times
     */
    public record RegisterOutcome(String label, String guard, long writesOk, long writesRejected, long writesIndeterminate,
                                  long finalValue, long lostUpdates, long unexplained, List<StaleWrite> staleWrites) {
    }

    /**
     * An applied write that set the counter to a value at or below one written before it.
     *
     * @param client the writer, {@code C.I}
     * @param token its token
     * @param value what it wrote
     * @param highestBefore the highest value written before
     * @param micros when the write completed
     */
    public record StaleWrite(String client, long token, long value, long highestBefore, long micros) {
    }

    /**
     * What happened during one injected fault and one lease plus a second after it.
     *
     * @param window the fault
     * @param holdsLost holds reported lost in the window
     * @param violations mutual-exclusion violations that began in the window
     * @param unreportedLosses unreported losses that began in the window
     * @param staleOverlaps overlaps with a lost hold that began in the window
     * @param tokenViolations token violations in the window
     * @param rejectedWrites writes refused by a guard, by counter label
     * @param staleWrites lost-update witnesses, by counter label
     */
    public record FaultOutcome(FaultWindow window, int holdsLost, int violations, int unreportedLosses, int staleOverlaps, int tokenViolations,
                               Map<String, Integer> rejectedWrites, Map<String, Integer> staleWrites) {
    }
}
