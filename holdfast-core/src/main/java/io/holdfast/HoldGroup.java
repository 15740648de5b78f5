package io.holdfast;

import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Ordinary holds owned together, lost together and released together, as a state machine: the parts of a
 * {@link MultiHold} and the permits of a {@link PermitHold}.
 *
 * <pre>
 *   HELD ──shrink (some parts given back)──▶ HELD
 *     │  └──a part given back turned out lost at its release──▶ LOST
 *     ├──closed──▶ RELEASING ──every part released──▶ RELEASED
 *     │                 └──a part turned out lost at its release──▶ LOST
 *     └──a part lost (its deadline passed, the store disowned it, force-released)──▶ LOST
 * </pre>
 *
 * <p>Invariants, checked on every transition: HELD has at least one part; RELEASING and RELEASED are entered
 * only by the one close; LOST and RELEASED are final; the first part lost is recorded once, on the way into
 * LOST, and the listeners are told once. Transitions happen in {@link #move} under this object's lock; part
 * releases and listener calls run outside it.
 */
final class HoldGroup {
    enum State { HELD, RELEASING, RELEASED, LOST }

    private static final Map<State, Set<State>> ALLOWED = new EnumMap<>(Map.of(
            State.HELD, EnumSet.of(State.HELD, State.RELEASING, State.LOST),
            State.RELEASING, EnumSet.of(State.RELEASED, State.LOST),
            State.RELEASED, EnumSet.noneOf(State.class),
            State.LOST, EnumSet.noneOf(State.class)));

    /** What the group is, for messages: "the multi-hold on [a, b]". */
    private final String what;
    /** What its parts are called, for messages: "locks", "permits". */
    private final String partsNoun;

    // Guarded by this.
    private State state = State.HELD;
    /** In the order they were taken; released in reverse. Shrinks only from the end. */
    private List<Hold> parts;
    private boolean closed;
    private Hold lostPart;
    private String lossReason;
    private final List<HoldLostListener> listeners = new ArrayList<>();

    private HoldGroup(String what, String partsNoun, List<Hold> parts) {
        this.what = what;
        this.partsNoun = partsNoun;
        this.parts = List.copyOf(parts);
    }

    /** A group over {@code parts} (at least one), in the order they were taken, that watches each for its loss. */
    static HoldGroup of(String what, String partsNoun, List<Hold> parts) {
        if (parts.isEmpty()) {
            throw Invariants.violated(what + ": a group of no holds");
        }
        HoldGroup group = new HoldGroup(what, partsNoun, parts);
        for (Hold part : group.parts) {
            part.onLost(group::partLost); // told at once if the part is lost already
        }
        return group;
    }

    synchronized List<Hold> parts() {
        return parts;
    }

    boolean isValid() {
        List<Hold> now;
        synchronized (this) {
            if (state != State.HELD || closed) {
                return false;
            }
            now = parts;
        }
        for (Hold part : now) {
            if (!part.isValid()) { // a part past its deadline turns lost now, and tells partLost
                return false;
            }
        }
        return true;
    }

    /**
     * The group's state as a {@link Hold}'s: HELD turns RELEASED once a part is released without the group's close,
     * which only the client's close does (it releases every hold it has), as a plain hold's state does then.
     */
    Hold.State state() {
        List<Hold> now;
        synchronized (this) {
            switch (state) {
                case RELEASING, RELEASED -> {
                    return Hold.State.RELEASED;
                }
                case LOST -> {
                    return Hold.State.LOST;
                }
                default -> now = parts;
            }
        }
        for (Hold part : now) { // outside this lock, as the parts' own locks are taken
            if (part.state() == Hold.State.RELEASED) {
                return Hold.State.RELEASED;
            }
        }
        return Hold.State.HELD;
    }

    synchronized String lossReason() {
        return lossReason;
    }

    void checkValid() {
        List<Hold> now;
        synchronized (this) {
            if (state == State.LOST) {
                throw lostError(lossReason);
            }
            if (closed) {
                throw new LockLostException(what + " was released");
            }
            now = parts;
        }
        for (Hold part : now) {
            if (!part.isValid()) { // past its deadline: lost now (and partLost is told)
                throw lostError(describe(part, part.lossReason()));
            }
        }
    }

    void onLost(HoldLostListener listener) {
        Objects.requireNonNull(listener, "listener");
        Hold lost;
        String reason;
        synchronized (this) {
            if (state != State.LOST) {
                listeners.add(listener);
                return;
            }
            lost = lostPart;
            reason = lossReason;
        }
        lost.onLost((part, why) -> listener.holdLost(part, reason)); // the part is lost: told at once, on the event thread
    }

    /** A part's hold-lost listener, on the event thread. */
    private void partLost(Hold part, String reason) {
        List<HoldLostListener> toTell;
        synchronized (this) {
            if (state != State.HELD && state != State.RELEASING) {
                return; // lost already (another part, or found at release), or released
            }
            move(State.LOST);
            lostPart = part;
            lossReason = describe(part, reason);
            toTell = new ArrayList<>(listeners);
            listeners.clear();
        }
        for (HoldLostListener listener : toTell) {
            try {
                listener.holdLost(part, lossReason());
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(HoldGroup.class).error("a hold-lost listener of {} threw", what, e);
            }
        }
    }

    /**
     * Keeps the first {@code keep} parts and releases the others, newest first; the group stays HELD. A part
     * the store could not be told of frees when its lease runs out.
     *
     * @throws LockLostException if the group is lost, or a part given back turned out lost (the group is then
     *         lost); every part to give back is released all the same
     * @throws IllegalStateException if the group was closed
     */
    void shrink(int keep) {
        List<Hold> giveBack;
        synchronized (this) {
            if (state == State.LOST) {
                throw lostError(lossReason);
            }
            if (closed) {
                throw new IllegalStateException(what + " was released");
            }
            if (keep >= parts.size()) {
                return;
            }
            giveBack = parts.subList(keep, parts.size());
            parts = List.copyOf(parts.subList(0, keep));
            move(State.HELD);
        }
        Released outcome = release(giveBack);
        if (outcome.lost != null) {
            lostAtRelease(outcome.lost);
            throw lostError(lossReason() + "; the other " + partsNoun + " given back were released");
        }
        if (outcome.failure != null) {
            LoggerFactory.getLogger(HoldGroup.class).warn("{}: giving back {} failed; they free when their leases run out",
                    what, partsNoun, outcome.failure);
        }
    }

    /**
     * Releases every part, newest first. Calling it again does nothing.
     *
     * @throws LockLostException if a part had been lost; every other part is released all the same
     * @throws StoreUnavailableException if the store could not be told of a part's release
     */
    void close() {
        List<Hold> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (state == State.HELD) {
                move(State.RELEASING);
            }
            all = parts;
        }
        Released outcome = release(all);
        boolean wasLost;
        synchronized (this) {
            if (state == State.RELEASING && outcome.lost == null) {
                move(State.RELEASED);
            }
        }
        if (outcome.lost != null) {
            lostAtRelease(outcome.lost);
        }
        synchronized (this) {
            wasLost = state == State.LOST;
        }
        if (wasLost) {
            LockLostException error = lostError(lossReason() + "; the other " + partsNoun + " were released");
            if (outcome.failure != null) {
                error.addSuppressed(outcome.failure);
            }
            throw error;
        }
        if (outcome.failure != null) {
            throw outcome.failure;
        }
    }

    /** What releasing some parts came to: the first part found lost, the first other failure (with the rest suppressed). */
    private record Released(Hold lost, RuntimeException failure) {
    }

    private static Released release(List<Hold> parts) {
        Hold lost = null;
        RuntimeException failure = null;
        for (int i = parts.size() - 1; i >= 0; i--) {
            try {
                parts.get(i).close();
            } catch (LockLostException e) {
                if (lost == null) {
                    lost = parts.get(i);
                }
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        return new Released(lost, failure);
    }

    /**
     * A part turned out lost at its release. Its own listener (partLost) may come later and would find the
     * group LOST already, so the listeners are told here, through the lost part.
     */
    private void lostAtRelease(Hold part) {
        List<HoldLostListener> toTell;
        String reason;
        synchronized (this) {
            if (state == State.HELD || state == State.RELEASING) {
                move(State.LOST);
                lostPart = part;
                lossReason = describe(part, part.lossReason());
            }
            toTell = new ArrayList<>(listeners);
            listeners.clear();
            part = lostPart;
            reason = lossReason;
        }
        for (HoldLostListener listener : toTell) {
            part.onLost((p, why) -> listener.holdLost(p, reason));
        }
    }

    private static String describe(Hold part, String reason) {
        return "'" + part.lockName() + "' (token " + part.fencingToken() + ") was "
                + (reason == null ? "released by the client's close" : "lost: " + reason);
    }

    private LockLostException lostError(String detail) {
        return new LockLostException(what + " is lost: " + detail);
    }

    /** The single place where the state changes; checks the invariants of the state entered. */
    private void move(State next) {
        if (!ALLOWED.get(state).contains(next)) {
            throw Invariants.violated(what + ": no transition " + state + " -> " + next);
        }
        if ((next == State.RELEASING || next == State.RELEASED) && !closed) {
            throw Invariants.violated(what + ": " + next + " without a close");
        }
        if (next == State.HELD && (closed || parts.isEmpty())) {
            throw Invariants.violated(what + ": HELD with " + parts.size() + " parts" + (closed ? ", closed" : ""));
        }
        state = next;
    }

    @Override
    public String toString() {
        return what + "[" + state() + "]";
    }
}
