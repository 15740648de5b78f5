package io.holdfast;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A named lock in a store. A handle is cheap, thread-safe and holds nothing itself: every acquire
 * through it takes a new {@link Hold} with its own owner, so two threads sharing one handle still
 * exclude each other. Re-entry is explicit, through {@link Hold#reenter()}, or thread-bound, through
 * {@link #asLock()}.
 *
 * <p>Every successful acquire yields a fencing token greater than every token issued before for this
 * name. Waits are woken by the store's release notifications where it has them, and otherwise (and as
 * a fallback) by bounded polling.
 */
public interface DistributedLock {

    /** The lock's name. */
    String name();

    /**
     * Takes the lock if it is free, without waiting (one store round trip). Like
     * {@link java.util.concurrent.locks.ReentrantLock#tryLock()}, it takes a free lock even while other
     * callers of this client wait for it.
     *
     * @return the hold, or empty if another owner holds the lock
     * @throws StoreUnavailableException if the store cannot be reached
     */
    Optional<Hold> tryAcquire();

    /**
     * Takes the lock, waiting up to {@code wait} for it, behind the waiters that came first (this
     * client's, and everyone's where the store orders waiters). At least one attempt is made, so a free
     * lock is taken however short the wait; the call returns at most one store call (bounded by the
     * store's request time-out) after the wait runs out.
     *
     * @return the hold, or empty if the wait ran out
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    Optional<Hold> tryAcquire(Duration wait) throws InterruptedException;

    /**
     * Takes the lock, waiting up to {@code wait} for it.
     *
     * @throws LockTimeoutException if the lock was not acquired within {@code wait}
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    Hold acquire(Duration wait) throws InterruptedException;

    /**
     * Takes the lock, waiting as long as it takes.
     *
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    Hold acquire() throws InterruptedException;

    /**
     * Takes the lock without blocking the caller: the future completes with the hold, or with a
     * {@link LockTimeoutException} once {@code wait} runs out. The future always completes. Any completion
     * by the caller (cancel, complete, {@code orTimeout}) abandons the wait; a hold acquired concurrently
     * is released, never leaked.
     */
    CompletableFuture<Hold> acquireAsync(Duration wait);

    /**
     * A {@link java.util.concurrent.locks.Lock} view whose holds belong to the calling thread, as that
     * interface's contract says: a thread may lock it again (re-entry, same fencing token) and only the
     * locking thread may unlock it. Each call returns a new, independent view.
     */
    FencedLock asLock();
}
