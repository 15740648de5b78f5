package io.holdfast;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The state machine of a {@link PermitAcquisition}: its states, the transitions allowed and the invariant of each
 * state, checked on every move.
 *
 * <pre>
 *   GATE ──gate granted──▶ TRYING (one attempt each on k permits, from a random one, concurrently)
 *   TRYING ──fewer than k taken; a tryAcquire, or the deadline passed──▶ TRYING (one attempt each on every permit
 *                                                                      not tried yet: a free one is taken however
 *                                                                      short the wait)
 *          ──fewer than k taken, every permit tried; a wait, deadline ahead──▶ WAITING (a wait on each permit not taken)
 *   WAITING ──a permit granted, fewer than k taken──▶ WAITING
 *   TRYING, WAITING ──k taken──▶ CHECKING (the waits left ended; the gate and every permit checked, outside the lock)
 *   CHECKING ──all valid──▶ DONE (a hold of the k permits; the gate released)
 *            ──a permit lost while the others were awaited; a wait──▶ TRYING (every permit given back, then a first
 *                                                                     round again, under the same gate and deadline)
 *            ──the gate lost; or a permit lost in a tryAcquire──▶ DONE (all given back)
 *   GATE, TRYING, WAITING ──a wait or attempt failed, deadline, no permits left to try, the gate lost, the caller
 *                            gave up (cancel, complete, interrupt) or the client closed──▶ DONE (all given back)
 *   CHECKING ──the caller gave up──▶ DONE (the check gives back what it holds)
 * </pre>
 *
 * <p>Invariants: GATE holds nothing; TRYING and WAITING hold the gate and fewer than k permits; attempts are in
 * flight only in TRYING; permit waits exist only in WAITING, on permits not taken, enough with those taken to make
 * k; in CHECKING and DONE the acquisition's own fields hold nothing and nothing is in flight (in CHECKING, the
 * check has the gate and permits); DONE is final.
 */
final class PermitStates {
    enum State {
        /** Waiting for the gate. */
        GATE,
        /** Holding the gate; a round of single attempts on permits is in flight. */
        TRYING,
        /** Holding the gate; waiting on every permit not taken for enough of them. */
        WAITING,
        /** k permits taken: the gate and every permit are being checked; the check owns them. */
        CHECKING,
        /** Over: the future is (being) completed; what was held is handed to the hold or being given back. */
        DONE
    }

    private static final Map<State, Set<State>> ALLOWED = new EnumMap<>(Map.of(
            State.GATE, EnumSet.of(State.TRYING, State.DONE),
            State.TRYING, EnumSet.of(State.TRYING, State.WAITING, State.CHECKING, State.DONE),
            State.WAITING, EnumSet.of(State.WAITING, State.CHECKING, State.DONE),
            State.CHECKING, EnumSet.of(State.TRYING, State.DONE),
            State.DONE, EnumSet.noneOf(State.class)));

    private PermitStates() {
    }

    /**
     * The move of {@code acquisition} from {@code from} to {@code next}, given what it holds and has in flight.
     *
     * @return {@code next}
     * @throws IllegalStateException (an {@link Invariants} violation) if the transition or the state entered is not allowed
     */
    static State move(Object acquisition, State from, State next, boolean gateHeld, boolean gateWaiting, Set<Integer> taken,
                      int wanted, Set<Integer> waits, int attemptsInFlight) {
        if (!ALLOWED.get(from).contains(next)) {
            throw Invariants.violated(acquisition + ": no transition " + from + " -> " + next);
        }
        boolean ok = switch (next) {
            case GATE -> !gateHeld && taken.isEmpty();
            case TRYING -> gateHeld && taken.size() < wanted && waits.isEmpty() && !gateWaiting;
            case WAITING -> gateHeld && taken.size() < wanted && attemptsInFlight == 0 && !gateWaiting
                    && taken.size() + waits.size() >= wanted && waits.stream().noneMatch(taken::contains);
            case CHECKING, DONE -> !gateHeld && !gateWaiting && taken.isEmpty() && waits.isEmpty() && attemptsInFlight == 0;
        };
        if (!ok) {
            throw Invariants.violated(acquisition + ": entering " + next + " with " + taken.size() + " of " + wanted + " permits, "
                    + waits.size() + " waits, " + attemptsInFlight + " attempts in flight, gate " + (gateHeld ? "held" : "not held"));
        }
        return next;
    }
}
