package io.holdfast.testkit.torture;

import io.holdfast.testkit.torture.Checker.Span;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import io.holdfast.testkit.torture.TortureResult.HoldOverlap;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Exclusion for a run of {@code permits} permits ({@link TortureSettings#permits()}): at most that many valid holds at
 * once. With 1 permit (the lock) these are {@link Checker}'s pairwise checks. With N &gt; 1, a hold granted while N
 * other actors' holds were in force is over N; it is recorded once, as an overlap of that hold and the latest
 * granted of the others, from its grant until enough of them end to leave N. Like a pair of the lock, it is a
 * violation if none of them was reported lost and no fault explains it, an unreported loss if only holders frozen or
 * cut off past their lease make it over N, and stale (what fencing has to catch) if a lost hold does.
 *
 * <p>Tokens need nothing more: a permit hold's token is its semaphore's gate's, so the lock's check (increasing in
 * real-time order, never repeated) applies to every acquisition of the semaphore.
 */
final class PermitCheck {
    private PermitCheck() {
    }

    /** {@link ExclusionCheck#pairs} for {@code permits} permits. */
    static void overlaps(List<Span> holds, int permits, List<FaultWindow> faults, long leaseMicros, List<HoldOverlap> violations,
                         List<HoldOverlap> unreported, List<HoldOverlap> stale) {
        if (permits == 1) {
            ExclusionCheck.pairs(holds, faults, leaseMicros, violations, unreported, stale);
            return;
        }
        List<Span> active = new ArrayList<>();
        for (Span s : holds) {
            active.removeIf(a -> a.endMicros <= s.okMicros);
            List<Span> valid = new ArrayList<>();
            List<Span> frozen = new ArrayList<>();
            List<Span> others = new ArrayList<>();
            for (Span a : active) {
                if (a.sameActor(s)) {
                    continue;
                }
                others.add(a);
                if (!a.reportedLost()) {
                    (Checker.frozenOrCutOffPastLease(a, s, faults, leaseMicros) ? frozen : valid).add(a);
                }
            }
            if (others.size() >= permits) {
                if (!s.reportedLost() && valid.size() >= permits) {
                    violations.add(overN(s, valid, permits));
                } else if (!s.reportedLost() && valid.size() + frozen.size() >= permits) {
                    valid.addAll(frozen);
                    unreported.add(overN(s, valid, permits));
                } else {
                    stale.add(overN(s, others, permits));
                }
            }
            if (s.endMicros > s.okMicros) {
                active.add(s);
            }
        }
    }

    /**
     * {@code s} with the latest granted of {@code others} (in grant order), from {@code s}'s grant to when no more than
     * {@code permits} of them all are left.
     */
    private static HoldOverlap overN(Span s, List<Span> others, int permits) {
        Span latest = others.get(others.size() - 1);
        List<Long> ends = new ArrayList<>();
        others.forEach(o -> ends.add(o.endMicros));
        ends.add(s.endMicros);
        ends.sort(null);
        return new HoldOverlap(latest.name(), latest.token, s.name(), s.token, s.okMicros, ends.get(ends.size() - permits - 1));
    }

    /**
     * {@link ExclusionCheck#validWhilePairHeld} for {@code permits} permits: holds that said they were valid while
     * {@code permits} other actors' holds, granted before, not yet released and never reported lost, were in force.
     * One overlap per such hold (with the latest granted of the others), from its first such sample to its last; a
     * hold already in {@code known} is not repeated.
     */
    static List<HoldOverlap> validWhileOthersHeld(List<Span> holds, List<Event> samples, int permits, List<HoldOverlap> known) {
        if (permits == 1) {
            return ExclusionCheck.validWhilePairHeld(holds, samples, known);
        }
        Set<Long> seen = new HashSet<>();
        known.forEach(o -> {
            seen.add(o.tokenA());
            seen.add(o.tokenB());
        });
        Map<Long, HoldOverlap> found = new LinkedHashMap<>();
        for (Event v : samples) {
            if (seen.contains(v.token())) {
                continue;
            }
            Span latest = null;
            int inForce = 0;
            for (Span b : holds) {
                boolean sameActor = b.client == v.client() && b.incarnation == v.incarnation() && b.thread == v.thread();
                long end = b.releaseInvokeMicros != 0 ? b.releaseInvokeMicros : b.endMicros;
                if (sameActor || b.token == v.token() || b.reportedLost() || b.okMicros > v.micros() || end < v.micros()) {
                    continue;
                }
                inForce++;
                if (latest == null || b.okMicros > latest.okMicros) {
                    latest = b;
                }
            }
            if (inForce >= permits) {
                HoldOverlap before = found.get(v.token());
                found.put(v.token(), new HoldOverlap(v.actor(), v.token(), latest.name(), latest.token,
                        before == null ? v.micros() : before.startMicros(), v.micros()));
            }
        }
        return new ArrayList<>(found.values());
    }
}
