package io.holdfast.bench.shared;

import java.time.Duration;

/**
 * One client of a lock library, shared by many threads at once. Each thread releases what it acquired, on the same
 * thread (several libraries require that).
 */
interface Locker extends AutoCloseable {

    /**
     * Takes {@code lockName}, waiting up to {@code wait}.
     *
     * @return what {@link #release} needs to give it back, or null if it was not acquired within {@code wait}
     */
    Object acquire(String lockName, Duration wait) throws Exception;

    /** Gives back a lock this thread acquired. */
    void release(Object held) throws Exception;

    @Override
    void close();
}
