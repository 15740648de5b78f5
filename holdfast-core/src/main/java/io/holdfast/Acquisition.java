package io.holdfast;

import io.holdfast.LockListener.AcquireOutcome;
import io.holdfast.spi.Attempt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;

/**
 * One wait for a lock, as a state machine. It keeps one owner id for all its attempts, so an attempt whose
 * reply was lost is adopted by the next, and it leaves nothing behind: whatever ends it (a grant, the
 * deadline, a store error, the caller completing or cancelling its future, an interrupt, the client's
 * close) completes the future exactly once and gives back the owner if it may hold or queue anything.
 *
 * <pre>
 *   QUEUED ──turn──▶ WAITING ◀──refused, deadline ahead──┐
 *     │                 │ wake (release or poll)          │
 *     │ turn(attempt)   ▼                                 │
 *     └──────────────▶ CALLING ──wake──▶ CALLING_WOKEN ───┘ (WOKEN: call again at once)
 *                       │  ▲ refused, deadline ahead │
 *                       │  └─────────────────────────┘
 *                       │ caller gives up
 *                       ▼
 *                   ABANDONING ──call returns──▶ DONE (owner given back)
 *   QUEUED, WAITING ──deadline, give-up──▶ DONE;  CALLING* ──granted, refused past deadline, error──▶ DONE
 * </pre>
 *
 * <p>Invariants, checked on every transition: exactly one store call is in flight in CALLING, CALLING_WOKEN
 * and ABANDONING, and none otherwise; a poll timer exists only in WAITING; DONE has no timer and no watch.
 * A deadline that passes during a call is acted on when the call returns (a grant it brings is kept), so a
 * wait overruns its deadline by at most one store call, which the store bounds by its request time-out.
 * Every transition happens in {@link #move} under this object's lock; store calls, timers' callbacks,
 * queue hand-overs, the client's {@link LockListener}s and the future's completion run outside it. The
 * listeners hear exactly one end of the wait, before the future completes: from {@link #end} on the way
 * out of DONE without a grant, from {@link #giveUp} when the caller gives up during a call (ABANDONING),
 * or, for a grant, from {@link HoldfastClient#started}.
 */
final class Acquisition {
    private static final Logger log = LoggerFactory.getLogger(Acquisition.class);
    /** A wait at least this long has no deadline. */
    static final Duration FOREVER = Duration.ofDays(365L * 100);

    enum State {
        /** Behind an earlier waiter of this client for the name (only where the store keeps no order). */
        QUEUED,
        /** Its turn: a release signal or the poll timer starts the next call. */
        WAITING,
        /** A store call (watch registration and/or attempt) is in flight. */
        CALLING,
        /** As CALLING, and a wake-up arrived meanwhile: if refused, call again at once. */
        CALLING_WOKEN,
        /** The caller gave up during a call: when it returns, the owner is given back. */
        ABANDONING,
        /** Over: the future is (being) completed and nothing of this wait remains. */
        DONE
    }

    /** Every legal transition; {@link #move} refuses the rest. */
    private static final Map<State, Set<State>> ALLOWED = new EnumMap<>(Map.of(
            State.QUEUED, EnumSet.of(State.WAITING, State.CALLING, State.DONE),
            State.WAITING, EnumSet.of(State.CALLING, State.DONE),
            State.CALLING, EnumSet.of(State.CALLING, State.CALLING_WOKEN, State.WAITING, State.ABANDONING, State.DONE),
            State.CALLING_WOKEN, EnumSet.of(State.CALLING, State.ABANDONING, State.DONE),
            State.ABANDONING, EnumSet.of(State.DONE),
            State.DONE, EnumSet.noneOf(State.class)));

    final LockHandle handle;
    final String ownerId;
    final CompletableFuture<Hold> future = new CompletableFuture<>();
    private final Duration wait;
    private final long startNanos;
    private final boolean forever;
    private final long deadlineNanos;
    private final boolean storeQueues;
    private final boolean storeNotifies;

    // Guarded by this.
    private State state = State.QUEUED;
    private boolean attempted;
    private boolean unsure;
    private int polls;
    private RuntimeException lastError;
    private Duration holderHint;
    private ScheduledFuture<?> pollTimer;
    private ScheduledFuture<?> deadlineTimer;
    private AutoCloseable watch;

    Acquisition(LockHandle handle, String ownerId, long startNanos, Duration wait) {
        this.handle = handle;
        this.ownerId = ownerId;
        this.wait = wait;
        this.startNanos = startNanos;
        this.forever = wait.compareTo(FOREVER) >= 0;
        this.deadlineNanos = forever ? 0 : startNanos + wait.toNanos();
        this.storeQueues = handle.client.store.traits().queuesWaiters();
        this.storeNotifies = handle.client.store.traits().notifiesReleases();
        // Any completion by the caller (cancel, complete, orTimeout...) ends the wait; ours is a no-op here.
        future.whenComplete((hold, error) -> giveUp(new IllegalStateException("the caller completed the wait")));
    }

    /**
     * Starts the wait. {@code firstAttempt} is the caller's own refused attempt (null if none was made),
     * {@code firstError} a transient error it met instead.
     */
    void start(Attempt firstAttempt, RuntimeException firstError) {
        synchronized (this) {
            attempted = firstAttempt != null || firstError != null;
            unsure = storeQueues || firstError != null;
            lastError = firstError;
            holderHint = firstAttempt == null ? null : firstAttempt.holderLeaseRemaining();
        }
        if (!handle.client.register(this)) {
            giveUp(HoldfastClient.closedWhileWaiting());
            return;
        }
        boolean attemptNow = !attempted;
        if (storeQueues) {
            turn(attemptNow); // the store orders its waiters: each owner acts on its own turn
        } else {
            handle.client.enqueue(this, attemptNow);
        }
        if (!forever) {
            synchronized (this) {
                if (state != State.DONE) {
                    deadlineTimer = handle.client.schedule(this::deadline, deadlineNanos - System.nanoTime());
                }
            }
        }
    }

    synchronized boolean isOver() {
        return state == State.DONE || state == State.ABANDONING;
    }

    /** Its turn has come (it heads this client's queue, or the store orders waiters). */
    void turn(boolean attemptNow) {
        boolean call;
        boolean watchToo;
        synchronized (this) {
            if (state != State.QUEUED) {
                return; // over already: the leave that follows passes the turn on
            }
            watchToo = storeNotifies;
            call = attemptNow || watchToo;
            if (call) {
                move(State.CALLING);
            } else {
                move(State.WAITING);
                schedulePoll();
            }
        }
        if (call) {
            dispatch(watchToo, attemptNow);
        }
    }

    /** A release was signalled, or a poll fell due. */
    void wake() {
        synchronized (this) {
            switch (state) {
                case WAITING -> move(State.CALLING);
                case CALLING -> {
                    move(State.CALLING_WOKEN);
                    return;
                }
                default -> {
                    return;
                }
            }
        }
        dispatch(false, true);
    }

    private void deadline() {
        synchronized (this) {
            if (state != State.QUEUED && state != State.WAITING) {
                return; // in a call, the call's return acts on it; over, nothing to do
            }
            move(State.DONE);
        }
        RuntimeException error = timeoutError();
        end(error, outcomeOf(error));
    }

    /** The caller, an interrupt or the client's close ends the wait. */
    void giveUp(RuntimeException reason) {
        boolean inCall;
        synchronized (this) {
            switch (state) {
                case QUEUED, WAITING -> move(State.DONE);
                case CALLING, CALLING_WOKEN -> move(State.ABANDONING);
                default -> {
                    return;
                }
            }
            inCall = state == State.ABANDONING;
        }
        if (inCall) {
            leaveQueue(false); // the next waiter need not wait for this call; its return gives the owner back
            handle.client.listeners.acquireEnded(handle.name, AcquireOutcome.ABANDONED, startNanos, 0);
            future.completeExceptionally(reason);
        } else {
            end(reason, AcquireOutcome.ABANDONED);
        }
    }

    private void dispatch(boolean registerWatch, boolean attempt) {
        try {
            handle.client.io.execute(() -> call(registerWatch, attempt));
        } catch (RejectedExecutionException e) {
            returned(null, HoldfastClient.closedWhileWaiting(), 0, false);
        }
    }

    /** One store call, on the I/O pool: optionally a fresh watch, then optionally an attempt. */
    private void call(boolean registerWatch, boolean attempt) {
        if (registerWatch) {
            rewatch();
        }
        if (!attempt) {
            returned(null, null, 0, false);
            return;
        }
        long sent = System.nanoTime();
        Attempt result = null;
        RuntimeException error = null;
        try {
            result = handle.attempt(ownerId);
        } catch (RuntimeException e) {
            error = e;
        } catch (Error e) {
            // Not transient (a driver's missing class, say): it ends the wait as a failure instead of stranding it.
            error = new IllegalStateException("the " + handle.client.store.backend() + " store failed: " + e, e);
        }
        if (result != null && !result.acquired() && storeQueues) {
            rewatch(); // a queueing store's predecessor may have changed
        }
        returned(result, error, sent, true);
    }

    /** What a returned call leads to, decided under the lock and done outside it. */
    private enum Next { NOTHING, CALL_AGAIN, DELIVER, END }

    private void returned(Attempt result, RuntimeException error, long sentNanos, boolean attemptMade) {
        boolean granted = result != null && result.acquired();
        Next next;
        RuntimeException endWith = null;
        AcquireOutcome endAs = null; // null: told already (abandoned during the call)
        synchronized (this) {
            attempted |= attemptMade;
            if (error != null) {
                unsure = true;
            }
            if (state == State.ABANDONING) {
                move(State.DONE);
                next = Next.END; // gives the owner back; giveUp completed the future already
                unsure |= granted;
            } else if (granted) {
                move(State.DONE);
                next = Next.DELIVER;
            } else if (error != null && !(error instanceof StoreUnavailableException)) {
                move(State.DONE); // not transient (a refused argument, a store error): retrying would hide it
                next = Next.END;
                endWith = error;
                endAs = outcomeOf(error);
            } else {
                if (error != null) {
                    lastError = error;
                    log.debug("attempt on '{}' failed", handle.name, error);
                } else if (result != null) {
                    lastError = null;
                    holderHint = result.holderLeaseRemaining();
                }
                if (attempted && !forever && System.nanoTime() - deadlineNanos >= 0) {
                    move(State.DONE);
                    next = Next.END;
                    endWith = timeoutError();
                    endAs = outcomeOf(endWith);
                } else if (state == State.CALLING_WOKEN || !attempted) {
                    move(State.CALLING);
                    next = Next.CALL_AGAIN;
                } else {
                    move(State.WAITING);
                    schedulePoll();
                    next = Next.NOTHING;
                }
            }
        }
        switch (next) {
            case CALL_AGAIN -> dispatch(false, true);
            case DELIVER -> deliver(result, sentNanos);
            case END -> end(endWith, endAs);
            case NOTHING -> { }
        }
    }

    private void deliver(Attempt result, long sentNanos) {
        leaveQueue(true);
        Hold hold;
        try {
            hold = handle.granted(ownerId, result, sentNanos, startNanos);
        } catch (RuntimeException e) {
            future.completeExceptionally(e); // the client closed meanwhile; granted() released the lease
            return;
        }
        if (!future.complete(hold)) {
            handle.client.releaseUnwanted(hold); // the caller gave up as it was granted: hold nothing
        }
    }

    /** After moving to DONE without a grant: leave the queue, give back, tell the listeners (unless told already), complete. */
    private void end(RuntimeException error, AcquireOutcome outcome) {
        boolean giveBack;
        synchronized (this) {
            giveBack = unsure;
        }
        leaveQueue(false);
        if (giveBack) {
            handle.giveBack(ownerId);
        }
        if (outcome != null) {
            handle.client.listeners.acquireEnded(handle.name, outcome, startNanos, 0);
        }
        if (error != null) {
            future.completeExceptionally(error);
        }
    }

    private void leaveQueue(boolean acquired) {
        handle.client.unregister(this);
        if (!storeQueues) {
            handle.client.existingQueue(handle.name).ifPresent(q -> q.leave(this, acquired));
        }
    }

    /** How a wait that ends with {@code error} ended, for the listeners; a closed client's ending is the caller's. */
    private AcquireOutcome outcomeOf(RuntimeException error) {
        if (error instanceof LockTimeoutException) {
            return AcquireOutcome.TIMED_OUT;
        }
        return handle.client.isClosed() && !(error instanceof StoreException) ? AcquireOutcome.ABANDONED : AcquireOutcome.FAILED;
    }

    private RuntimeException timeoutError() {
        RuntimeException error;
        synchronized (this) {
            error = lastError;
        }
        // A store that stayed unreachable is reported as such, never as a plain timeout.
        return error instanceof StoreUnavailableException ? error : new LockTimeoutException(handle.name, wait);
    }

    /** Registers a fresh store watch for this waiter, then closes the one it replaces. */
    private void rewatch() {
        AutoCloseable fresh;
        try {
            fresh = handle.client.store.watchReleases(handle.name, ownerId, this::wake);
        } catch (RuntimeException | Error e) {
            log.debug("watching '{}' failed; polling only", handle.name, e);
            return;
        }
        AutoCloseable old;
        synchronized (this) {
            if (isOver()) {
                old = fresh;
            } else {
                old = watch;
                watch = fresh;
            }
        }
        HoldfastClient.closeQuietly(old);
    }

    /** The single place where the state changes; checks the invariants of the state entered. */
    private void move(State next) {
        if (!ALLOWED.get(state).contains(next)) {
            throw Invariants.violated("acquisition of '" + handle.name + "': no transition " + state + " -> " + next);
        }
        if (state == State.WAITING && next != State.WAITING && pollTimer != null) {
            pollTimer.cancel(false);
            pollTimer = null;
        }
        state = next;
        if (next == State.DONE) {
            if (deadlineTimer != null) {
                deadlineTimer.cancel(false);
                deadlineTimer = null;
            }
            if (watch != null) {
                AutoCloseable w = watch;
                handle.client.runInBackground(() -> HoldfastClient.closeQuietly(w)); // may be a store call: never under this monitor
                watch = null;
            }
        }
        if (pollTimer != null && next != State.WAITING || next == State.DONE && (deadlineTimer != null || watch != null)) {
            throw Invariants.violated("acquisition of '" + handle.name + "': a timer or watch left entering " + next);
        }
    }

    // Called under this, in WAITING.
    private void schedulePoll() {
        long delay = PollBackoff.delayNanos(handle.client.store.traits(), polls++, holderHint);
        if (!forever) {
            delay = Math.min(delay, Math.max(0, deadlineNanos - System.nanoTime()));
        }
        pollTimer = handle.client.schedule(this::wake, delay);
    }

    @Override
    public synchronized String toString() {
        return "Acquisition[" + handle.name + ", " + ownerId + ", " + state + "]";
    }
}
