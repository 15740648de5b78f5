package io.holdfast;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One side of a {@link DistributedReadWriteLock}: a fixed number of permits of its semaphore, one for the read lock
 * and all of them for the write lock. Every acquire is a new acquisition with its own {@link PermitHold}, all or
 * nothing, as {@link DistributedSemaphore}'s are.
 */
public interface PermitLock {

    /** The lock's name. */
    String name();

    /** The permits each acquire takes. */
    int permits();

    /**
     * Takes the lock if it is free now, without waiting; empty also while another acquire of the name is at the gate
     * (see {@link DistributedSemaphore#tryAcquire(int)}).
     *
     * @throws StoreUnavailableException if the store cannot be reached (nothing is then held)
     */
    Optional<PermitHold> tryAcquire();

    /**
     * Takes the lock, waiting up to {@code wait}.
     *
     * @return the hold, or empty if the wait ran out (nothing is then held)
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    Optional<PermitHold> tryAcquire(Duration wait) throws InterruptedException;

    /**
     * Takes the lock, waiting up to {@code wait}.
     *
     * @throws LockTimeoutException if the wait ran out; nothing is then held
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    PermitHold acquire(Duration wait) throws InterruptedException;

    /**
     * Takes the lock, waiting as long as it takes.
     *
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    PermitHold acquire() throws InterruptedException;

    /**
     * Takes the lock without blocking the caller: the future completes with the hold, or with a
     * {@link LockTimeoutException} once {@code wait} runs out. Any completion by the caller abandons the wait and
     * gives back what was taken, on the client's I/O pool, right after (never on the thread that completed it).
     */
    CompletableFuture<PermitHold> acquireAsync(Duration wait);
}
