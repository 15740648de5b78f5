package io.holdfast;

import io.holdfast.spi.Attempt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One waiting acquire. It keeps one owner id for all its attempts, so an attempt whose reply was lost
 * is adopted by the next one, and gives back whatever an abandoned attempt may have taken. While it is
 * the head of its name's {@link WaitQueue} it polls with capped exponential backoff and is woken by
 * release signals; behind the head it only waits for its turn or its deadline.
 */
final class Acquisition {
    private static final Logger log = LoggerFactory.getLogger(Acquisition.class);
    /** A wait at least this long has no deadline. */
    static final Duration FOREVER = Duration.ofDays(365L * 100);
    /**
     * First poll of a waiter. A store that queues waiters and wakes each one's predecessor (etcd,
     * ZooKeeper) is polled only as a fallback, from a quarter of its longest interval; elsewhere a
     * waiter that lost the race after a wake-up retries soon.
     */
    private static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    final LockHandle handle;
    final String ownerId;
    final CompletableFuture<Hold> future = new CompletableFuture<>();
    private final Duration wait;
    private final boolean forever;
    private final long deadlineNanos;
    private volatile WaitQueue queue;

    // Guarded by this.
    private boolean attempting;
    private boolean wakeRequested;
    private boolean head;
    private boolean finished;
    private boolean anyAttemptFailed;
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
        this.forever = wait.compareTo(FOREVER) >= 0;
        this.deadlineNanos = forever ? 0 : startNanos + wait.toNanos();
        future.whenComplete((hold, error) -> {
            if (future.isCancelled()) {
                abandon();
            }
        });
    }

    /** Joins the queue after a first attempt the caller made itself. */
    void startWaiting(Attempt first, RuntimeException firstError) {
        synchronized (this) {
            if (first != null) {
                holderHint = first.holderLeaseRemaining();
            }
            if (firstError != null) {
                lastError = firstError;
                anyAttemptFailed = true;
            }
            armDeadline();
        }
        join(false);
    }

    /** Joins the queue and attempts at once. */
    void startAttempting() {
        synchronized (this) {
            armDeadline();
        }
        join(true);
    }

    private void join(boolean attemptNow) {
        WaitQueue q;
        do {
            q = handle.client.queue(handle.name);
            queue = q;
        } while (!q.enqueue(this, attemptNow));
    }

    /** Called by the queue when this acquisition becomes its head. */
    void becameHead(boolean attemptNow) {
        synchronized (this) {
            head = true;
        }
        rewatch();
        if (attemptNow) {
            wake();
        } else {
            synchronized (this) {
                schedulePoll();
            }
        }
    }

    /** A release was signalled, or a poll fell due: attempt now (or right after the attempt in flight). */
    void wake() {
        synchronized (this) {
            if (finished) {
                return;
            }
            if (attempting) {
                wakeRequested = true;
                return;
            }
            attempting = true;
            cancel(pollTimer);
            pollTimer = null;
        }
        try {
            handle.client.io.execute(this::attempt);
        } catch (RejectedExecutionException e) {
            fail(new IllegalStateException("the Holdfast client was closed while waiting"));
        }
    }

    private void attempt() {
        long sent = System.nanoTime();
        Attempt result = null;
        RuntimeException error = null;
        try {
            result = handle.attempt(ownerId);
        } catch (RuntimeException e) {
            error = e;
        }
        if (result != null && result.acquired()) {
            Hold hold;
            try {
                hold = handle.granted(ownerId, result, sent);
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
            synchronized (this) {
                attempting = false;
                finished = true;
                cleanupTimers();
            }
            queue.leave(this, true);
            if (!future.complete(hold)) {
                hold.close(); // cancelled while the attempt was in flight: hold nothing
            }
            return;
        }
        if (error == null && queueing()) {
            rewatch(); // a queueing store's predecessor may have changed
        }
        boolean again = false;
        boolean abandoned = false;
        RuntimeException failNow = null;
        synchronized (this) {
            attempting = false;
            if (finished) {
                // Cancelled while this attempt was in flight: abandon() left the give-back and the queue to
                // this attempt (a queueing store still lists the owner; a lost reply may have let it in).
                anyAttemptFailed |= error != null;
                abandoned = true;
            } else if (error != null && !(error instanceof StoreUnavailableException)) {
                // Not transient (a refused argument, a store error): retrying would only hide it.
                anyAttemptFailed = true;
                failNow = error;
            } else {
                if (error != null) {
                    lastError = error;
                    anyAttemptFailed = true;
                    log.debug("attempt on '{}' failed", handle.name, error);
                } else {
                    lastError = null;
                    holderHint = result.holderLeaseRemaining();
                }
                if (!forever && System.nanoTime() - deadlineNanos >= 0) {
                    again = false;
                } else if (wakeRequested) {
                    wakeRequested = false;
                    again = true;
                } else {
                    schedulePoll();
                    return;
                }
            }
        }
        if (failNow != null) {
            fail(failNow);
            return;
        }
        if (abandoned) {
            giveBackIfUnsure();
            queue.leave(this, false);
        } else if (again) {
            wake();
        } else {
            timeOut();
        }
    }

    private boolean queueing() {
        return handle.client.store.traits().queuesWaiters();
    }

    /** Registers a fresh store watch for this waiter, then closes the one it replaces. */
    private void rewatch() {
        AutoCloseable fresh;
        try {
            fresh = handle.client.store.watchReleases(handle.name, ownerId, this::wake);
        } catch (RuntimeException e) {
            log.debug("watching '{}' failed; polling only", handle.name, e);
            return;
        }
        AutoCloseable old;
        synchronized (this) {
            if (finished) {
                old = fresh;
            } else {
                old = watch;
                watch = fresh;
            }
        }
        closeQuietly(old);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception e) {
                // a watch that fails to close costs a stray wake-up at most
            }
        }
    }

    // Called under this.
    private void schedulePoll() {
        if (!head || finished || attempting) {
            return;
        }
        long max = handle.client.store.traits().maxPollInterval().toNanos();
        var traits = handle.client.store.traits();
        long first = traits.notifiesReleases() && traits.queuesWaiters() ? Math.max(FIRST_POLL_NANOS, max / 4) : FIRST_POLL_NANOS;
        long delay = Math.min(max, first << Math.min(polls, 20));
        polls++;
        if (holderHint != null) {
            // No point polling long before the holder's lease runs out, nor long after.
            delay = Math.min(delay, Math.max(0, holderHint.toNanos()) + TimeUnit.MILLISECONDS.toNanos(5));
        }
        delay = (long) (delay * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble()));
        if (!forever) {
            delay = Math.min(delay, Math.max(0, deadlineNanos - System.nanoTime()));
        }
        try {
            pollTimer = handle.client.timers.schedule(this::wake, delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // client closing; abandonAll fails this acquisition
        }
    }

    // Called under this.
    private void armDeadline() {
        if (forever) {
            return;
        }
        try {
            deadlineTimer = handle.client.timers.schedule(this::onDeadline,
                    Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // client closing
        }
    }

    private void onDeadline() {
        synchronized (this) {
            if (finished || attempting) {
                return; // the attempt in flight finishes the job when it returns
            }
        }
        timeOut();
    }

    private void timeOut() {
        RuntimeException error;
        synchronized (this) {
            error = lastError;
        }
        // A store that stayed unreachable is reported as such, never as a plain timeout.
        fail(error instanceof StoreUnavailableException ? error : new LockTimeoutException(handle.name, wait));
    }

    void fail(RuntimeException error) {
        synchronized (this) {
            if (finished) {
                return;
            }
            finished = true;
            attempting = false;
            cleanupTimers();
        }
        giveBackIfUnsure();
        queue.leave(this, false);
        future.completeExceptionally(error);
    }

    private void abandon() {
        synchronized (this) {
            if (finished) {
                return;
            }
            finished = true;
            cleanupTimers();
            if (attempting) {
                return; // the attempt returns, sees finished, and gives back a grant itself
            }
        }
        giveBackIfUnsure();
        queue.leave(this, false);
    }

    /**
     * Leaves nothing behind: an attempt whose reply was lost may have taken the lock, and a queueing
     * store keeps a refused owner in its queue, so give the owner back.
     */
    private void giveBackIfUnsure() {
        boolean unsure;
        synchronized (this) {
            unsure = anyAttemptFailed || queueing();
        }
        if (unsure) {
            handle.giveBack(ownerId);
        }
    }

    // Called under this.
    private void cleanupTimers() {
        cancel(pollTimer);
        cancel(deadlineTimer);
        pollTimer = null;
        deadlineTimer = null;
        closeQuietly(watch);
        watch = null;
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }
}
