package io.holdfast;

import java.time.Duration;

/**
 * A connection to one lock store. Thread-safe; open one per store and share it.
 *
 * <pre>{@code
 * try (Holdfast holdfast = Holdfast.connect("sqlite:")) {
 *     try (Hold hold = holdfast.lock("orders/42").acquire(Duration.ofSeconds(5))) {
 *         stock.decrement(hold.fencingToken());
 *     }
 * }
 * }</pre>
 *
 * <p>Closing a client releases every hold it still has and stops renewing them.
 */
public interface Holdfast extends AutoCloseable {

    /**
     * Connects to the store named by {@code uri}, found among the backends on the class path
     * ({@code sqlite:}, {@code jdbc:postgresql:}, {@code jdbc:mariadb:}, {@code jdbc:mysql:}, and those
     * later modules add).
     *
     * @throws IllegalArgumentException if no backend accepts the URI, naming the schemes that are accepted
     * @throws StoreUnavailableException if the store cannot be reached
     */
    static Holdfast connect(String uri) {
        return builder(uri).connect();
    }

    /** A builder for a client with non-default settings. */
    static HoldfastBuilder builder(String uri) {
        return new HoldfastBuilder(uri);
    }

    /**
     * A client over a store built by a backend module from a client the application already has, for example
     * {@code JdbcLocks.store(dataSource)} or {@code RedisLocks.store(redisClient)}. Same settings as
     * {@link #builder(String)}.
     *
     * <p>Who closes what: the returned client owns {@code store}; closing the client releases its holds and
     * closes the store. Closing a store built from an application's client closes only what the store opened
     * itself (its own connections, sessions, threads), never the application's client, which the application
     * closes after the Holdfast client.
     */
    static HoldfastBuilder builder(io.holdfast.spi.LockStore store) {
        return new HoldfastBuilder(store);
    }

    /** {@code builder(store).connect()}: a client with default settings over {@code store}; see {@link #builder(io.holdfast.spi.LockStore)}. */
    static Holdfast of(io.holdfast.spi.LockStore store) {
        return builder(store).connect();
    }

    /**
     * A handle on the lock called {@code name}, with the client's default lease (30 s unless set, or the store's
     * longest lease if that is shorter), renewed while held.
     * Cheap: no store call happens until an acquire.
     *
     * @throws IllegalArgumentException if the name is not valid (see {@link LockNames})
     */
    DistributedLock lock(String name);

    /**
     * A handle on the lock called {@code name} whose holds last {@code lease} and are renewed only if
     * {@code renew} is true. A lease that is not renewed ends the hold when it runs out, even while the
     * holder still runs; the hold then reports itself lost.
     *
     * @throws IllegalArgumentException if the name is not valid, or the lease is outside what this store can keep
     *         (the core's 100 ms to 7 d, narrowed by the store: at least 1 s on ZooKeeper, etcd and Memcached, at
     *         most a ZooKeeper ensemble's {@code maxSessionTimeout}); the message names the range and what limits it
     */
    DistributedLock lock(String name, Duration lease, boolean renew);

    /**
     * A handle on the locks called {@code names}, taken together all or nothing, in ascending name order (so two
     * multi-locks never deadlock), with the client's default lease, renewed while held. See {@link MultiLock}.
     *
     * @throws IllegalArgumentException unless the names are 1 to {@link MultiLock#MAX_NAMES} distinct valid names
     */
    MultiLock multiLock(String... names);

    /**
     * As {@link #multiLock(String...)}, with holds that last {@code lease} and are renewed only if {@code renew}
     * is true (see {@link #lock(String, Duration, boolean)}).
     *
     * @throws IllegalArgumentException unless the names are 1 to {@link MultiLock#MAX_NAMES} distinct valid names
     *         and the lease is valid
     */
    MultiLock multiLock(java.util.Collection<String> names, Duration lease, boolean renew);

    /**
     * A handle on the semaphore called {@code name} with {@code permits} permits, each held with the client's default
     * lease, renewed while held. See {@link DistributedSemaphore}.
     *
     * <p><b>Every client must give the name the same number of permits</b>: nothing checks it, and clients that
     * disagree share the first permits, so up to the largest number given are held at once.
     *
     * @throws IllegalArgumentException unless the name is a valid lock name of at most
     *         {@link DistributedSemaphore#MAX_NAME_LENGTH} characters and permits is 1 to {@link DistributedSemaphore#MAX_PERMITS}
     */
    DistributedSemaphore semaphore(String name, int permits);

    /**
     * As {@link #semaphore(String, int)}, with permits held for {@code lease} and renewed only if {@code renew} is
     * true (see {@link #lock(String, Duration, boolean)}): without renewal, a permit comes back when its lease runs out.
     *
     * @throws IllegalArgumentException if the name, number of permits or lease is not valid
     */
    DistributedSemaphore semaphore(String name, int permits, Duration lease, boolean renew);

    /**
     * A handle on the read-write lock called {@code name}: up to {@link DistributedReadWriteLock#MAX_READERS} readers
     * at once (a fixed number, the same for every client), or one writer; held with the client's default lease,
     * renewed while held. See {@link DistributedReadWriteLock}.
     *
     * @throws IllegalArgumentException unless the name is a valid lock name of at most
     *         {@link DistributedSemaphore#MAX_NAME_LENGTH} characters
     */
    DistributedReadWriteLock readWriteLock(String name);

    /**
     * As {@link #readWriteLock(String)}, with holds that last {@code lease} and are renewed only if {@code renew} is
     * true (see {@link #lock(String, Duration, boolean)}).
     *
     * @throws IllegalArgumentException unless the name and the lease are valid
     */
    DistributedReadWriteLock readWriteLock(String name, Duration lease, boolean renew);

    /**
     * A candidacy, not yet started, in the election of a leader among everyone who competes for the lock called
     * {@code name}, with the client's default lease. See {@link LeaderElection}.
     *
     * @throws IllegalArgumentException if the name is not valid
     */
    LeaderElection leader(String name);

    /**
     * As {@link #leader(String)}, with a leadership lease of {@code lease}, renewed while the candidate leads: a
     * leader that dies is succeeded within it, and one cut off from the store is revoked before it runs out.
     *
     * @throws IllegalArgumentException if the name or lease is not valid
     */
    LeaderElection leader(String name, Duration lease);

    /** Operator functions: inspect, list and force-release locks. */
    LockAdmin admin();

    /** What this client talks to, for example {@code postgresql 127.0.0.1:5432/test}. */
    String describe();

    /** Releases every hold this client still has (best effort), stops renewal and closes the store. */
    @Override
    void close();
}
