package io.holdfast.testkit.torture;

import io.holdfast.testkit.torture.Checker.Span;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import io.holdfast.testkit.torture.TortureResult.HoldOverlap;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which holds may not overlap, by what the run's clients take ({@link TortureSettings#recipe()}): the lock's holds
 * pairwise (these sweeps), a semaphore's beyond its permits ({@link PermitCheck}), a read-write lock's writes with
 * anything ({@link ReadWriteCheck}). A leadership is the election's lock: two leaders at once are a pair of the lock,
 * and two leaders of one term are one token issued twice, which {@link Checker#tokens} finds for every recipe.
 */
final class ExclusionCheck {
    private ExclusionCheck() {
    }

    /** Overlaps of holds the recipe forbids, each a violation, an unreported loss or stale. */
    static void overlaps(List<Span> holds, TortureSettings settings, List<FaultWindow> faults, long leaseMicros,
                         List<HoldOverlap> violations, List<HoldOverlap> unreported, List<HoldOverlap> stale) {
        if (settings.recipe() == TortureSettings.Recipe.READ_WRITE) {
            ReadWriteCheck.overlaps(holds, faults, leaseMicros, violations, unreported, stale);
        } else {
            PermitCheck.overlaps(holds, settings.permits(), faults, leaseMicros, violations, unreported, stale);
        }
    }

    /** Holds that said they were valid while holds the recipe forbids beside them were in force. */
    static List<HoldOverlap> validWhileOthersHeld(List<Span> holds, List<Event> samples, TortureSettings settings, List<HoldOverlap> known) {
        if (settings.recipe() == TortureSettings.Recipe.READ_WRITE) {
            return ReadWriteCheck.validWhileOthersHeld(holds, samples, known);
        }
        return PermitCheck.validWhileOthersHeld(holds, samples, settings.permits(), known);
    }

    /**
     * Sweeps holds in order of start. Each overlap of two processes' holds is stale (one was reported lost),
     * an unreported loss ({@link Checker#frozenOrCutOffPastLease}) or a violation.
     */
    static void pairs(List<Span> holds, List<FaultWindow> faults, long leaseMicros, List<HoldOverlap> violations,
                         List<HoldOverlap> unreported, List<HoldOverlap> stale) {
        List<Span> active = new ArrayList<>();
        for (Span s : holds) {
            active.removeIf(a -> a.endMicros <= s.okMicros);
            for (Span a : active) {
                if (a.sameActor(s)) {
                    continue;
                }
                HoldOverlap o = new HoldOverlap(a.name(), a.token, s.name(), s.token, s.okMicros, Math.min(a.endMicros, s.endMicros));
                if (a.reportedLost() || s.reportedLost()) {
                    stale.add(o);
                } else if (Checker.frozenOrCutOffPastLease(a, s, faults, leaseMicros)) {
                    unreported.add(o);
                } else {
                    violations.add(o);
                }
            }
            if (s.endMicros > s.okMicros) {
                active.add(s);
            }
        }
    }

    /**
     * Holds that said they were valid ({@code isValid()} true, the time taken before the call) while another
     * actor's hold, granted before that instant, not yet released and never reported lost, was in force: two
     * holders each entitled to act, proven by the history alone. One overlap per pair of holds, from its
     * first such sample to its last; pairs already found by the sweep are not repeated.
     */
    static List<HoldOverlap> validWhilePairHeld(List<Span> holds, List<Event> samples, List<HoldOverlap> known) {
        Map<String, long[]> pairs = new LinkedHashMap<>(); // "actorA token|actorB token" -> {first, last, tokenA, tokenB}
        Map<String, String[]> names = new HashMap<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        known.forEach(o -> {
            seen.add(o.tokenA() + "|" + o.tokenB());
            seen.add(o.tokenB() + "|" + o.tokenA());
        });
        for (Event v : samples) {
            for (Span b : holds) {
                boolean sameActor = b.client == v.client() && b.incarnation == v.incarnation() && b.thread == v.thread();
                long end = b.releaseInvokeMicros != 0 ? b.releaseInvokeMicros : b.endMicros;
                if (sameActor || b.token == v.token() || b.reportedLost() || b.okMicros > v.micros() || end < v.micros()
                        || seen.contains(v.token() + "|" + b.token)) {
                    continue;
                }
                String key = v.token() + "|" + b.token;
                long[] p = pairs.computeIfAbsent(key, k -> new long[] {v.micros(), v.micros(), v.token(), b.token});
                p[1] = Math.max(p[1], v.micros());
                names.putIfAbsent(key, new String[] {v.actor(), b.name()});
            }
        }
        List<HoldOverlap> found = new ArrayList<>();
        pairs.forEach((key, p) -> found.add(new HoldOverlap(names.get(key)[0], p[2], names.get(key)[1], p[3], p[0], p[1])));
        return found;
    }

}
