package io.holdfast;

import java.util.concurrent.locks.Lock;

/**
 * A thread-bound {@link Lock} over a distributed lock. Holds belong to the thread that locked; a thread
 * may lock again (the holds are counted and the last {@link #unlock()} frees the lock); {@link #unlock()}
 * from another thread throws {@link IllegalMonitorStateException}. {@link #lock()} and
 * {@link #tryLock(long, java.util.concurrent.TimeUnit)} wait without a time limit / up to the limit;
 * {@link #newCondition()} is not supported.
 */
public interface FencedLock extends Lock {

    /**
     * The fencing token of the calling thread's hold.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold this lock
     */
    long fencingToken();

    /**
     * The calling thread's hold, for its validity and listeners.
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold this lock
     */
    Hold hold();
}
