package io.holdfast;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A thread-bound {@link ReadWriteLock} over a {@link DistributedReadWriteLock}. A thread's holds are counted: it may
 * lock either side again; a thread holding the write lock may lock the read lock, and unlocking the write lock then
 * keeps a read hold with the same token (a downgrade); a thread holding only read locks cannot take the write lock
 * ({@link IllegalMonitorStateException}, where {@link java.util.concurrent.locks.ReentrantReadWriteLock} would wait
 * forever). Unlocking from a thread that does not hold that side throws {@link IllegalMonitorStateException}.
 * {@code lock()} waits without a time limit and keeps waiting through interrupts; conditions are not supported.
 */
public interface FencedReadWriteLock extends ReadWriteLock {

    /**
     * The fencing token of the calling thread's hold, read or write.
     *
     * @throws IllegalMonitorStateException if the calling thread holds neither side
     */
    long fencingToken();

    /**
     * The calling thread's hold, for its validity and listeners.
     *
     * @throws IllegalMonitorStateException if the calling thread holds neither side
     */
    PermitHold hold();
}
