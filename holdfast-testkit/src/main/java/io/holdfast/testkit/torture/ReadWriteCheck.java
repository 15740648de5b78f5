package io.holdfast.testkit.torture;

import io.holdfast.testkit.torture.Checker.Span;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import io.holdfast.testkit.torture.TortureResult.HoldOverlap;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Exclusion for a read-write lock ({@link TortureSettings.Recipe#READ_WRITE}): readers share, a writer is alone. An
 * overlap of two holds is forbidden when either is a write (its acquire recorded {@code write}): a reader with a
 * writer, or two writers. Each such overlap is classified as the lock's are ({@link ExclusionCheck#pairs}); overlaps
 * of readers only are the lock working. (A write's token is its read-write lock's gate's, like a read's, so tokens
 * need nothing more.)
 */
final class ReadWriteCheck {
    private ReadWriteCheck() {
    }

    /** The lock's pairwise sweep, keeping the pairs with a write. */
    static void overlaps(List<Span> holds, List<FaultWindow> faults, long leaseMicros, List<HoldOverlap> violations,
                         List<HoldOverlap> unreported, List<HoldOverlap> stale) {
        List<HoldOverlap> v = new ArrayList<>();
        List<HoldOverlap> u = new ArrayList<>();
        List<HoldOverlap> s = new ArrayList<>();
        ExclusionCheck.pairs(holds, faults, leaseMicros, v, u, s);
        Set<Long> writes = writes(holds);
        violations.addAll(withAWrite(v, writes));
        unreported.addAll(withAWrite(u, writes));
        stale.addAll(withAWrite(s, writes));
    }

    /** Holds that said they were valid while another actor's hold was in force, one of the two a write. */
    static List<HoldOverlap> validWhileOthersHeld(List<Span> holds, List<Event> samples, List<HoldOverlap> known) {
        return withAWrite(ExclusionCheck.validWhilePairHeld(holds, samples, known), writes(holds));
    }

    /** The tokens of the writes. */
    static Set<Long> writes(List<Span> holds) {
        Set<Long> writes = new HashSet<>();
        for (Span h : holds) {
            if (h.kind.equals("write")) {
                writes.add(h.token);
            }
        }
        return writes;
    }

    private static List<HoldOverlap> withAWrite(List<HoldOverlap> overlaps, Set<Long> writes) {
        return overlaps.stream().filter(o -> writes.contains(o.tokenA()) || writes.contains(o.tokenB())).toList();
    }
}
