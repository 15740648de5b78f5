package io.holdfast;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * {@link MultiHold}: the holds on each part of a multi-lock, lost together and released together, as a state
 * machine.
 *
 * <pre>
 *   HELD ──closed──▶ RELEASING ──every part released──▶ RELEASED
 *     │                  └──a part turned out lost at its release──▶ LOST
 *     └──a part lost (its deadline passed, the store disowned it, force-released)──▶ LOST
 * </pre>
 *
 * <p>Invariants, checked on every transition: RELEASING and RELEASED are entered only by the one close; LOST
 * and RELEASED are final; the first part lost is recorded once, on the way into LOST, and the listeners are
 * told once. Transitions happen in {@link #move} under this object's lock; part releases and listener calls
 * run outside it.
 */
final class PartsHold implements MultiHold {
    enum State { HELD, RELEASING, RELEASED, LOST }

    private static final Map<State, Set<State>> ALLOWED = new EnumMap<>(Map.of(
            State.HELD, EnumSet.of(State.RELEASING, State.LOST),
            State.RELEASING, EnumSet.of(State.RELEASED, State.LOST),
            State.RELEASED, EnumSet.noneOf(State.class),
            State.LOST, EnumSet.noneOf(State.class)));

    /** Ascending by name, the order they were taken in. */
    private final List<Hold> parts;
    private final List<String> names;

    // Guarded by this.
    private State state = State.HELD;
    private boolean closed;
    private Hold lostPart;
    private String lossReason;
    private final List<HoldLostListener> listeners = new ArrayList<>();

    private PartsHold(List<Hold> parts) {
        this.parts = List.copyOf(parts);
        this.names = this.parts.stream().map(Hold::lockName).toList();
    }

    /** A multi-hold over {@code parts}, taken in ascending name order, that watches each part for its loss. */
    static PartsHold of(List<Hold> parts) {
        PartsHold hold = new PartsHold(parts);
        for (Hold part : hold.parts) {
            part.onLost(hold::partLost); // told at once if the part is lost already
        }
        return hold;
    }

    @Override
    public List<String> lockNames() {
        return names;
    }

    @Override
    public long fencingToken(String name) {
        for (Hold part : parts) {
            if (part.lockName().equals(name)) {
                return part.fencingToken();
            }
        }
        throw new IllegalArgumentException("'" + name + "' is not a lock of this multi-hold; its locks are " + names);
    }

    @Override
    public boolean isValid() {
        synchronized (this) {
            if (state != State.HELD || closed) {
                return false;
            }
        }
        for (Hold part : parts) {
            if (!part.isValid()) { // a part past its deadline turns lost now, and tells partLost
                return false;
            }
        }
        return true;
    }

    @Override
    public synchronized Hold.State state() {
        return switch (state) {
            case HELD -> Hold.State.HELD;
            case RELEASING, RELEASED -> Hold.State.RELEASED;
            case LOST -> Hold.State.LOST;
        };
    }

    @Override
    public synchronized String lossReason() {
        return lossReason;
    }

    @Override
    public void checkValid() {
        synchronized (this) {
            if (state == State.LOST) {
                throw lostError(lossReason);
            }
            if (closed) {
                throw new LockLostException("the multi-hold on " + names + " was released");
            }
        }
        for (Hold part : parts) {
            if (!part.isValid()) { // past its deadline: lost now (and partLost is told)
                throw lostError(describe(part, part.lossReason()));
            }
        }
    }

    @Override
    public void onLost(HoldLostListener listener) {
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
                org.slf4j.LoggerFactory.getLogger(PartsHold.class).error("a multi-hold-lost listener threw", e);
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (state == State.HELD) {
                move(State.RELEASING);
            }
        }
        LockLostException lost = null;
        Hold lostAtRelease = null;
        RuntimeException failure = null;
        for (int i = parts.size() - 1; i >= 0; i--) {
            try {
                parts.get(i).close();
            } catch (LockLostException e) {
                if (lost == null) {
                    lost = e;
                    lostAtRelease = parts.get(i);
                }
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        boolean wasLost;
        synchronized (this) {
            if (state == State.RELEASING) {
                if (lost != null) {
                    // The part's own listener (partLost) would find LOST already: tell ours through the lost part.
                    move(State.LOST);
                    lostPart = lostAtRelease;
                    lossReason = describe(lostAtRelease, lostAtRelease.lossReason());
                } else {
                    move(State.RELEASED);
                }
            }
            wasLost = state == State.LOST;
        }
        if (wasLost) {
            tellLateListeners();
            LockLostException error = lostError(lossReason() + "; the other locks were released");
            if (failure != null) {
                error.addSuppressed(failure);
            }
            throw error;
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** After a loss found at release: tells the listeners added while RELEASING, through the lost part. */
    private void tellLateListeners() {
        List<HoldLostListener> toTell;
        Hold lost;
        String reason;
        synchronized (this) {
            toTell = new ArrayList<>(listeners);
            listeners.clear();
            lost = lostPart;
            reason = lossReason;
        }
        for (HoldLostListener listener : toTell) {
            lost.onLost((part, why) -> listener.holdLost(part, reason));
        }
    }

    private static String describe(Hold part, String reason) {
        return "'" + part.lockName() + "' (token " + part.fencingToken() + ") was "
                + (reason == null ? "released by the client's close" : "lost: " + reason);
    }

    private LockLostException lostError(String what) {
        return new LockLostException("the multi-hold on " + names + " is lost: " + what);
    }

    /** The single place where the state changes. */
    private void move(State next) {
        if (!ALLOWED.get(state).contains(next)) {
            throw Invariants.violated("multi-hold on " + names + ": no transition " + state + " -> " + next);
        }
        if ((next == State.RELEASING || next == State.RELEASED) && !closed) {
            throw Invariants.violated("multi-hold on " + names + ": " + next + " without a close");
        }
        state = next;
    }

    @Override
    public String toString() {
        return "MultiHold" + names + "[" + state() + "]";
    }
}
