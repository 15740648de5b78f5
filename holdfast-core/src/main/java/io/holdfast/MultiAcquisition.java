package io.holdfast;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One wait for every part of a {@link MultiLock}, as a state machine: the parts are waited for one at a time,
 * in ascending name order, each with what is left of the one deadline.
 *
 * <pre>
 *   WAITING(part i) ──part i granted, more to take──▶ WAITING(part i+1)
 *      │ last part granted ──▶ DONE (the future gets a hold on every part)
 *      │ part i timed out or failed, the caller gave up (cancel, complete, interrupt) ──▶ DONE (parts taken released)
 * </pre>
 *
 * <p>Invariants, checked on every transition: in WAITING, the parts taken are exactly the parts before the one
 * waited for, and at most one part's wait is in flight; DONE holds no part (each was handed to the hold or
 * released) and is final. A part's hold has one owner at any time: the grant's callback either adds it to the
 * parts taken (in WAITING) or, once DONE, releases it; whoever moves to DONE releases the parts taken. Every
 * transition happens in {@link #move} under this object's lock; part waits, releases and the future's
 * completion run outside it.
 */
final class MultiAcquisition {
    enum State {
        /** A part's wait is in flight. */
        WAITING,
        /** Over: the future is (being) completed and no part is held by this wait. */
        DONE
    }

    private static final Map<State, Set<State>> ALLOWED = new EnumMap<>(Map.of(
            State.WAITING, EnumSet.of(State.WAITING, State.DONE),
            State.DONE, EnumSet.noneOf(State.class)));

    final CompletableFuture<MultiHold> future = new CompletableFuture<>();
    private final MultiLockHandle lock;
    private final Duration wait;
    private final boolean forever;
    private final long deadlineNanos;

    // Guarded by this.
    private State state = State.WAITING;
    private int waitingFor;
    private final List<Hold> taken = new ArrayList<>();
    private CompletableFuture<Hold> partWait;

    MultiAcquisition(MultiLockHandle lock, Duration wait) {
        this.lock = lock;
        this.wait = wait;
        this.forever = wait.compareTo(Acquisition.FOREVER) >= 0;
        this.deadlineNanos = System.nanoTime() + (forever ? 0 : wait.toNanos());
        // Any completion by the caller (cancel, complete, orTimeout...) ends the wait; ours is a no-op here.
        future.whenComplete((hold, error) -> giveUp());
    }

    void start() {
        waitFor(0);
    }

    /** Starts the wait for part {@code i}, with what is left of the deadline. */
    private void waitFor(int i) {
        CompletableFuture<Hold> f;
        try {
            f = lock.parts.get(i).acquireAsync(forever ? Acquisition.FOREVER : left());
        } catch (RuntimeException e) {
            failed(i, e); // the client is closed
            return;
        }
        boolean over;
        synchronized (this) {
            over = state == State.DONE;
            if (!over) {
                partWait = f;
            }
        }
        if (over) {
            f.cancel(false); // given up meanwhile; a concurrent grant comes to granted(), which releases it
        }
        f.whenComplete((hold, error) -> {
            if (error == null) {
                granted(i, hold);
            } else {
                failed(i, error);
            }
        });
    }

    private Duration left() {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    private void granted(int i, Hold hold) {
        boolean keep;
        boolean last = false;
        List<Hold> all = null;
        synchronized (this) {
            keep = state == State.WAITING && waitingFor == i;
            if (keep) {
                taken.add(hold);
                partWait = null;
                last = taken.size() == lock.parts.size();
                if (last) {
                    all = List.copyOf(taken);
                    taken.clear();
                    move(State.DONE);
                } else {
                    waitingFor = i + 1;
                    move(State.WAITING);
                }
            }
        }
        if (!keep) {
            MultiLockHandle.releaseQuietly(List.of(hold), null); // the wait was given up as this part came
        } else if (last) {
            MultiHold multi = PartsHold.of(all);
            if (!future.complete(multi)) {
                MultiLockHandle.closeQuietly(multi); // the caller gave up as the last part came: hold nothing
            }
        } else {
            waitFor(i + 1);
        }
    }

    private void failed(int i, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        List<Hold> release;
        synchronized (this) {
            if (state != State.WAITING || waitingFor != i) {
                return; // over already: the part's wait failed because this wait cancelled it
            }
            release = drop();
        }
        RuntimeException outcome;
        if (cause instanceof LockTimeoutException) {
            outcome = timeout(lock.names(), lock.names().get(i), wait);
        } else if (cause instanceof CancellationException) {
            outcome = new IllegalStateException("the wait for '" + lock.names().get(i) + "' was cancelled");
        } else if (cause instanceof RuntimeException re) {
            outcome = re; // a store that stayed unreachable, a closed client, a refused argument
        } else {
            outcome = new HoldfastException("acquiring " + lock + " failed", cause);
        }
        MultiLockHandle.releaseQuietly(release, outcome);
        future.completeExceptionally(outcome);
    }

    /** The caller completed the future (or an interrupt cancelled it): end the part's wait, release the rest. */
    private void giveUp() {
        CompletableFuture<Hold> inFlight;
        List<Hold> release;
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            inFlight = partWait;
            release = drop();
        }
        if (inFlight != null) {
            inFlight.cancel(false); // a grant racing it is released by the lock's own wait, or by granted()
        }
        MultiLockHandle.releaseQuietly(release, null);
    }

    /** Moves to DONE and hands the parts taken to the caller to release. Called under this. */
    private List<Hold> drop() {
        List<Hold> release = List.copyOf(taken);
        taken.clear();
        partWait = null;
        move(State.DONE);
        return release;
    }

    static LockTimeoutException timeout(List<String> names, String busy, Duration wait) {
        return new LockTimeoutException("multi-lock " + names + " was not acquired within " + Durations.format(wait)
                + (busy == null ? "" : ": '" + busy + "' stayed held") + "; none of its locks is held");
    }

    /** The single place where the state changes; checks the invariants of the state entered. */
    private void move(State next) {
        if (!ALLOWED.get(state).contains(next)) {
            throw Invariants.violated(lock + ": no transition " + state + " -> " + next);
        }
        state = next;
        if (next == State.WAITING && taken.size() != waitingFor || next == State.DONE && (!taken.isEmpty() || partWait != null)) {
            throw Invariants.violated(lock + ": entering " + next + " with " + taken.size() + " parts taken, waiting for part "
                    + waitingFor + (partWait != null ? ", a part's wait in flight" : ""));
        }
    }

    @Override
    public synchronized String toString() {
        return "MultiAcquisition[" + lock.names() + ", " + state + ", part " + waitingFor + "]";
    }
}
