package io.holdfast.bench;

import java.time.Duration;

/**
 * One client of a lock library, possibly shared by many threads at once. Each thread releases (and renews) what it
 * acquired, on the same thread (several libraries require that).
 */
interface Locker extends AutoCloseable {

    /**
     * Takes {@code lockName}, waiting up to {@code wait} (zero: one attempt).
     *
     * @return what {@link #release} needs to give it back, or null if it was not acquired within {@code wait}
     */
    Object acquire(String lockName, Duration wait) throws Exception;

    /** Gives back a lock this thread acquired. */
    void release(Object held) throws Exception;

    /**
     * Extends a hold by one lease, for a library whose {@link LockLibrary#renewal()} is
     * {@link LockLibrary.Renewal#BY_HARNESS}.
     *
     * @return what to release or renew from now on, or null if the hold was lost
     */
    default Object renew(Object held) throws Exception {
        throw new UnsupportedOperationException("this library renews by itself or not at all");
    }

    @Override
    void close();
}
