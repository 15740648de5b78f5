package io.holdfast;

import io.holdfast.spi.Attempt;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** {@link DistributedLock}: a name, a lease policy and the client. */
final class LockHandle implements DistributedLock {
    final HoldfastClient client;
    final String name;
    final Duration lease;
    final boolean renew;

    LockHandle(HoldfastClient client, String name, Duration lease, boolean renew) {
        this.client = client;
        this.name = name;
        this.lease = lease;
        this.renew = renew;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<Hold> tryAcquire() {
        client.checkOpen();
        String owner = client.newOwnerId();
        long sent = System.nanoTime();
        Attempt attempt = attemptOrGiveBack(owner);
        if (attempt.acquired()) {
            return Optional.of(granted(owner, attempt, sent));
        }
        dequeue(owner);
        return Optional.empty();
    }

    /** A queueing store keeps a refused owner queued; take it out when the caller will not wait. */
    private void dequeue(String owner) {
        if (client.store.traits().queuesWaiters()) {
            client.store.release(name, owner);
        }
    }

    @Override
    public Optional<Hold> tryAcquire(Duration wait) throws InterruptedException {
        Durations.requireWait(wait);
        client.checkOpen();
        String owner = client.newOwnerId();
        long start = System.nanoTime();
        Attempt first;
        RuntimeException firstError = null;
        try {
            first = wait.isZero() ? attemptOrGiveBack(owner) : attempt(owner);
        } catch (StoreUnavailableException e) {
            if (wait.isZero()) {
                throw e;
            }
            first = null;
            firstError = e; // transient: the wait retries with the same owner, which adopts a grant the reply lost
        } catch (RuntimeException e) {
            giveBack(owner);
            throw e;
        }
        if (first != null && first.acquired()) {
            return Optional.of(granted(owner, first, start));
        }
        if (wait.isZero()) {
            dequeue(owner);
            return Optional.empty();
        }
        Acquisition acquisition = new Acquisition(this, owner, start, wait);
        acquisition.startWaiting(first, firstError);
        CompletableFuture<Hold> future = acquisition.future;
        try {
            return Optional.of(future.get());
        } catch (InterruptedException e) {
            if (!future.cancel(false)) {
                Hold won = future.getNow(null);
                if (won != null) {
                    won.close(); // interrupted as it was granted: give it back, hold nothing
                }
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
        } catch (CancellationException e) {
            throw new IllegalStateException("the wait for '" + name + "' was abandoned", e);
        }
    }

    @Override
    public Hold acquire(Duration wait) throws InterruptedException {
        return tryAcquire(wait).orElseThrow(() -> new LockTimeoutException(name, wait));
    }

    @Override
    public Hold acquire() throws InterruptedException {
        return acquire(Acquisition.FOREVER);
    }

    @Override
    public CompletableFuture<Hold> acquireAsync(Duration wait) {
        Durations.requireWait(wait);
        client.checkOpen();
        Acquisition acquisition = new Acquisition(this, client.newOwnerId(), System.nanoTime(), wait);
        acquisition.startAttempting();
        return acquisition.future;
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

    /** Releases {@code owner} in the background, best effort; a stray grant otherwise ends with its lease. */
    void giveBack(String owner) {
        try {
            client.io.execute(() -> {
                try {
                    client.store.release(name, owner);
                } catch (RuntimeException e) {
                    // the store is down or refused: any stray grant ends with its lease
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the client is closing
        }
    }

    /** Turns a successful attempt sent at {@code sentNanos} into a hold. */
    Hold granted(String owner, Attempt attempt, long sentNanos) {
        Lease l = new Lease(client, name, owner, attempt.fencingToken(), lease, renew, sentNanos);
        Hold hold = client.started(l);
        l.start();
        return hold;
    }

    @Override
    public String toString() {
        return "DistributedLock[" + name + " on " + client.describe() + "]";
    }
}
