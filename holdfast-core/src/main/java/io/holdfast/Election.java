package io.holdfast;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@link LeaderElection} over one lock, as a state machine. Each wait for the lock is a round; a callback of
 * an earlier round finds its round over and releases whatever it brings.
 *
 * <pre>
 *   IDLE ──start──▶ CANDIDATE ──lock granted──▶ LEADER
 *                    ▲   │ wait failed: retry in a second            │
 *                    │   └──────────────────┘                        │
 *                    └──────────── hold lost: revoked ───────────────┘
 *   IDLE, CANDIDATE, LEADER ──close (LEADER: revoked)──▶ CLOSED
 * </pre>
 *
 * <p>Invariants, checked on every transition: a hold exists exactly in LEADER and a term with it; a round's wait
 * is in flight only in CANDIDATE; CLOSED has neither and is final. Listener calls are queued in transition
 * order, under this object's lock, on the client's single event thread, so they run outside it and in order.
 * Store calls (releases) and waits run outside it.
 */
final class Election implements LeaderElection {
    private static final Logger log = LoggerFactory.getLogger(Election.class);
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final Map<State, Set<State>> ALLOWED = new EnumMap<>(Map.of(
            State.IDLE, EnumSet.of(State.CANDIDATE, State.CLOSED),
            State.CANDIDATE, EnumSet.of(State.CANDIDATE, State.LEADER, State.CLOSED),
            State.LEADER, EnumSet.of(State.CANDIDATE, State.CLOSED),
            State.CLOSED, EnumSet.noneOf(State.class)));

    private final HoldfastClient client;
    private final DistributedLock lock;
    private final List<ElectedListener> electedListeners = new CopyOnWriteArrayList<>();
    private final List<RevokedListener> revokedListeners = new CopyOnWriteArrayList<>();

    // Guarded by this.
    private State state = State.IDLE;
    private int round;
    private CompletableFuture<Hold> wait;
    private ScheduledFuture<?> retry;
    private Hold hold;
    private long term;

    Election(HoldfastClient client, DistributedLock lock) {
        this.client = client;
        this.lock = lock;
    }

    @Override
    public String name() {
        return lock.name();
    }

    @Override
    public void start() {
        synchronized (this) {
            if (state != State.IDLE) {
                throw new IllegalStateException("the election for '" + name() + "' was " + (state == State.CLOSED ? "closed" : "started already")
                        + "; make a new one with holdfast.leader(name)");
            }
            move(State.CANDIDATE);
        }
        campaign();
    }

    /** A new round: waits for the lock without a time limit. */
    private void campaign() {
        int myRound;
        synchronized (this) {
            if (state != State.CANDIDATE) {
                return;
            }
            myRound = ++round;
            retry = null;
        }
        CompletableFuture<Hold> f;
        try {
            f = lock.acquireAsync(Acquisition.FOREVER);
        } catch (RuntimeException e) {
            failed(myRound, e); // the client is closed
            return;
        }
        boolean over;
        synchronized (this) {
            over = state != State.CANDIDATE || round != myRound;
            if (!over) {
                wait = f;
            }
        }
        if (over) {
            f.cancel(false); // closed meanwhile; a grant racing it comes to granted(), which releases it
        }
        f.whenComplete((h, error) -> {
            if (error == null) {
                granted(myRound, h);
            } else {
                failed(myRound, error);
            }
        });
    }

    private void granted(int myRound, Hold granted) {
        boolean keep;
        synchronized (this) {
            keep = state == State.CANDIDATE && round == myRound;
            if (keep) {
                wait = null;
                hold = granted;
                term = granted.fencingToken();
                move(State.LEADER);
                long t = term;
                tell(electedListeners, l -> l.elected(t));
            }
        }
        if (!keep) {
            closeQuietly(granted); // this round was over (closed) as the lock came
            return;
        }
        granted.onLost((h, reason) -> lost(h, reason)); // told at once if it is lost already
    }

    /** The leader's hold was lost (its deadline passed, or the store disowned it): revoke, and run again. */
    private void lost(Hold lostHold, String reason) {
        synchronized (this) {
            if (state != State.LEADER || hold != lostHold) {
                return; // resigned meanwhile
            }
            long t = term;
            hold = null;
            term = 0;
            move(State.CANDIDATE);
            tell(revokedListeners, l -> l.revoked(t, reason));
        }
        client.runInBackground(() -> closeQuietly(lostHold)); // best effort: the store may still list it
        campaign();
    }

    private void failed(int myRound, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        synchronized (this) {
            if (state != State.CANDIDATE || round != myRound || cause instanceof CancellationException) {
                return; // this round was ended by close()
            }
            wait = null;
            move(State.CANDIDATE);
            log.warn("election for '{}': waiting for the lock failed; trying again in a second", name(), cause);
            try {
                retry = client.timers.schedule(this::campaign, RETRY_NANOS, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                retry = null; // the client is closing, and closes this election
            }
        }
    }

    @Override
    public boolean isLeader() {
        Hold h;
        synchronized (this) {
            if (state != State.LEADER) {
                return false;
            }
            h = hold;
        }
        return h.isValid(); // past its deadline, the hold turns lost now and lost() revokes
    }

    @Override
    public OptionalLong term() {
        Hold h;
        long t;
        synchronized (this) {
            if (state != State.LEADER) {
                return OptionalLong.empty();
            }
            h = hold;
            t = term;
        }
        return h.isValid() ? OptionalLong.of(t) : OptionalLong.empty();
    }

    @Override
    public State state() {
        Hold h;
        synchronized (this) {
            if (state != State.LEADER) {
                return state;
            }
            h = hold;
        }
        return h.isValid() ? State.LEADER : State.CANDIDATE;
    }

    @Override
    public void onElected(ElectedListener listener) {
        electedListeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void onRevoked(RevokedListener listener) {
        revokedListeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void close() {
        close("resigned: the election was closed");
    }

    /** Leaves the race; a leader is revoked with {@code reason}. */
    void close(String reason) {
        CompletableFuture<Hold> waiting;
        Hold resigned;
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            waiting = wait;
            resigned = hold;
            if (retry != null) {
                retry.cancel(false);
            }
            if (state == State.LEADER) {
                long t = term;
                tell(revokedListeners, l -> l.revoked(t, reason));
            }
            wait = null;
            retry = null;
            hold = null;
            term = 0;
            move(State.CLOSED);
        }
        client.forget(this);
        if (waiting != null) {
            waiting.cancel(false); // a grant racing it is released by the lock's wait, or by granted()
        }
        if (resigned != null) {
            closeQuietly(resigned);
        }
    }

    /**
     * Queues a call of each of {@code listeners} on the client's event thread; called under this, so calls keep
     * the order of the transitions. A listener that throws is logged and stops neither the others nor this.
     */
    private <L> void tell(List<L> listeners, java.util.function.Consumer<L> call) {
        List<L> now = List.copyOf(listeners);
        try {
            client.events.execute(() -> {
                for (L listener : now) {
                    try {
                        call.accept(listener);
                    } catch (RuntimeException e) {
                        log.error("a listener of the election for '{}' threw", name(), e);
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            log.debug("election for '{}': the client is closed; a listener call was dropped", name());
        }
    }

    private void closeQuietly(Hold h) {
        try {
            h.close();
        } catch (LockLostException e) {
            log.debug("election for '{}': the hold was lost before its release", name(), e);
        } catch (RuntimeException e) {
            log.warn("election for '{}': releasing the lock failed; it frees when its lease runs out", name(), e);
        }
    }

    /** The single place where the state changes; checks the invariants of the state entered. */
    private void move(State next) {
        if (!ALLOWED.get(state).contains(next)) {
            throw Invariants.violated("election for '" + name() + "': no transition " + state + " -> " + next);
        }
        state = next;
        boolean holdRight = (next == State.LEADER) == (hold != null);
        boolean waitRight = wait == null || next == State.CANDIDATE;
        if (!holdRight || !waitRight || next == State.CLOSED && retry != null) {
            throw Invariants.violated("election for '" + name() + "': entering " + next + " with hold " + hold
                    + ", term " + term + ", wait " + wait + ", retry " + retry);
        }
    }

    @Override
    public synchronized String toString() {
        return "LeaderElection[" + name() + ", " + state + (state == State.LEADER ? ", term " + term : "") + "]";
    }
}
