package io.holdfast;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Which permits a {@link PermitAcquisition} tries: from a random one (so that acquires spread over the permits), in
 * order, each once per take; a retake tries them all again. Guarded by its acquisition's lock.
 */
final class PermitRounds {
    private final int permits;
    private final int first;
    /** Permits tried so far in this take, counted from {@link #first}. */
    private int tried;

    PermitRounds(int permits) {
        this.permits = permits;
        this.first = ThreadLocalRandom.current().nextInt(permits);
    }

    /** The next {@code most} permits not tried yet in this take (fewer if fewer are left). */
    List<Integer> next(int most) {
        List<Integer> round = new ArrayList<>();
        while (round.size() < most && tried < permits) {
            round.add((first + tried++) % permits);
        }
        return round;
    }

    /** Whether this take has tried every permit. */
    boolean allTried() {
        return tried == permits;
    }

    /** A new take: every permit may be tried again. */
    void restart() {
        tried = 0;
    }

    /** Every permit not in {@code taken}, in index order. */
    List<Integer> allBut(Set<Integer> taken) {
        List<Integer> others = new ArrayList<>();
        for (int i = 0; i < permits; i++) {
            if (!taken.contains(i)) {
                others.add(i);
            }
        }
        return others;
    }
}
