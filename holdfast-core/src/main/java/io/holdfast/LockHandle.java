package io.holdfast;

import io.holdfast.LockListener.AcquireOutcome;
import io.holdfast.spi.Attempt;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** {@link DistributedLock}: a name, a lease policy and the client. */
final class LockHandle implements DistributedLock {
    final HoldfastClient client;
    final String name;
    final Duration lease;
    final boolean renew;
    /** Marked in the owner id of each of its holds, for {@code status} and {@code list}. */
    final LockInfo.Role role;

    LockHandle(HoldfastClient client, String name, Duration lease, boolean renew, LockInfo.Role role) {
        this.client = client;
        this.name = name;
        this.lease = lease;
        this.renew = renew;
        this.role = role;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<Hold> tryAcquire() {
        client.checkOpen();
        String owner = client.newOwnerId(role);
        long sent = System.nanoTime();
        client.listeners.acquireStarted(name);
        // Never blocks, so it does not answer to interrupts: set the flag aside for the store call.
        boolean interrupted = Thread.interrupted();
        try {
            Attempt attempt;
            try {
                attempt = attemptOrGiveBack(owner);
            } catch (RuntimeException | Error e) {
                client.listeners.acquireEnded(name, AcquireOutcome.FAILED, sent, 0);
                throw e;
            }
            if (attempt.acquired()) {
                return Optional.of(granted(owner, attempt, sent, sent));
            }
            client.listeners.acquireEnded(name, AcquireOutcome.BUSY, sent, 0);
            dequeue(owner);
            return Optional.empty();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A queueing store keeps a refused owner queued; take it out when the caller will not wait. The
     * answer (busy) stands even if this fails: the give-back then goes on in the background.
     */
    private void dequeue(String owner) {
        if (client.store.traits().queuesWaiters()) {
            try {
                client.store.release(name, owner);
            } catch (StoreUnavailableException e) {
                giveBack(owner);
            }
        }
    }

    @Override
    public Optional<Hold> tryAcquire(Duration wait) throws InterruptedException {
        Durations.requireWait(wait);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting for '" + name + "'");
        }
        if (wait.isZero()) {
            return tryAcquire();
        }
        return await(begin(wait), true);
    }

    @Override
    public Hold acquire(Duration wait) throws InterruptedException {
        return tryAcquire(wait).orElseThrow(() -> new LockTimeoutException(name, wait));
    }

    @Override
    public Hold acquire() throws InterruptedException {
        return acquire(Acquisition.FOREVER);
    }

    /** Waits as long as it takes, keeping its place in line through interrupts (restored afterwards). */
    Hold acquireUninterruptibly() {
        try {
            return await(begin(Acquisition.FOREVER), false).orElseThrow();
        } catch (InterruptedException e) {
            throw new AssertionError("an uninterruptible wait was interrupted", e);
        }
    }

    @Override
    public CompletableFuture<Hold> acquireAsync(Duration wait) {
        Durations.requireWait(wait);
        client.checkOpen();
        long start = System.nanoTime();
        client.listeners.acquireStarted(name);
        Acquisition acquisition = new Acquisition(this, client.newOwnerId(role), start, wait);
        acquisition.start(null, null);
        return acquisition.future;
    }

    /**
     * Starts a blocking wait. With nobody of this client waiting ahead (or a store that orders waiters
     * itself), the caller's own thread makes the first attempt, so an uncontended acquire costs one round
     * trip and no hand-over to another thread; otherwise the wait joins this client's queue behind those
     * already waiting, so a newcomer never barges past them.
     */
    private CompletableFuture<Hold> begin(Duration wait) {
        client.checkOpen();
        String owner = client.newOwnerId(role);
        long start = System.nanoTime();
        client.listeners.acquireStarted(name);
        Attempt first = null;
        RuntimeException firstError = null;
        if (client.store.traits().queuesWaiters() || !client.hasWaiters(name)) {
            try {
                first = attempt(owner);
            } catch (StoreUnavailableException e) {
                firstError = e; // transient: the wait retries with the same owner, which adopts a grant the reply lost
            } catch (RuntimeException | Error e) {
                giveBack(owner);
                client.listeners.acquireEnded(name, AcquireOutcome.FAILED, start, 0);
                throw e;
            }
            if (first != null && first.acquired()) {
                return CompletableFuture.completedFuture(granted(owner, first, start, start));
            }
        }
        Acquisition acquisition = new Acquisition(this, owner, start, wait);
        acquisition.start(first, firstError);
        return acquisition.future;
    }

    /** Waits for a started acquisition; an interrupt (if it counts) abandons it and holds nothing. */
    private Optional<Hold> await(CompletableFuture<Hold> future, boolean interruptible) throws InterruptedException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return Optional.of(future.get());
                } catch (InterruptedException e) {
                    if (!interruptible) {
                        interrupted = true;
                        continue;
                    }
                    if (!future.cancel(false) && !future.isCompletedExceptionally()) {
                        client.releaseUnwanted(future.getNow(null)); // interrupted as it was granted: hold nothing
                    }
                    throw e;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof LockTimeoutException) {
                        return Optional.empty();
                    }
                    if (cause instanceof RuntimeException re) {
                        throw re;
                    }
                    throw new HoldfastException("acquiring '" + name + "' failed", cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public FencedLock asLock() {
        return new ThreadBoundLock(this);
    }

    Attempt attempt(String owner) {
        return client.store.tryAcquire(name, owner, client.holderName, lease);
    }

    /**
     * One attempt that leaves nothing behind if it fails: a reply lost to a failure may hide a grant
     * (or, in a queueing store, a queued owner), so the owner is given back before the error goes on.
     */
    private Attempt attemptOrGiveBack(String owner) {
        try {
            return attempt(owner);
        } catch (RuntimeException e) {
            giveBack(owner);
            throw e;
        }
    }

    /**
     * Releases {@code owner} in the background: a grant whose reply was lost, or a queued owner, does not
     * outlive its wait (retried while the store is unreachable, for one lease).
     */
    void giveBack(String owner) {
        GiveBack.start(client, name, owner, lease);
    }

    /**
     * Turns a successful attempt sent at {@code sentNanos} into a hold, for an acquire that started at
     * {@code startNanos} (the listeners are told it ended ACQUIRED). Its local deadline counts from that send time,
     * or from the earlier instant the store says it counts the lease from.
     */
    Hold granted(String owner, Attempt attempt, long sentNanos, long startNanos) {
        return client.started(new Lease(client, name, owner, attempt.fencingToken(), lease, renew,
                attempt.leaseStartNanos(sentNanos)), startNanos);
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name + " on " + client.describe() + "]";
    }
}
