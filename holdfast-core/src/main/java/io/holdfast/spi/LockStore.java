package io.holdfast.spi;

import io.holdfast.LockInfo;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One store's lock primitives. Implementations are thread-safe. Every method may throw
 * {@link io.holdfast.StoreUnavailableException} when the store cannot be reached, and
 * {@link io.holdfast.HoldfastException} for other store errors; none of them waits for a lock.
 *
 * <p>An owner id identifies one acquisition (it is unique per hold, never reused). Store methods are
 * idempotent per owner id, so the core may retry any of them after a lost reply.
 */
public interface LockStore extends AutoCloseable {

    /** The backend's name, for example {@code postgresql}. */
    String backend();

    /** Where the store is, without credentials, for example {@code 127.0.0.1:5432/test}. */
    String address();

    /** What this store can promise. */
    StoreTraits traits();

    /**
     * One attempt to take {@code name} for {@code ownerId}: it succeeds if the lock is free, expired, or
     * already held by the same owner (then with the same token, so a retry after a lost reply neither
     * leaks a hold nor issues a second token). A new acquisition gets a token greater than every token
     * issued before for the name. The lease runs by the store's clock.
     */
    Attempt tryAcquire(String name, String ownerId, String holder, Duration lease);

    /**
     * Extends the leases of holds that are still held by their owners, in as few round trips as the
     * store allows.
     *
     * @return the owner ids among {@code holds} that were renewed; the others are no longer held
     */
    Set<String> renew(Collection<HoldRef> holds, Duration lease);

    /**
     * As {@link #renew}, but able to say "unknown" for holds on a part of the store that did not answer
     * (a Cluster master, a Redlock minority, one Memcached server): those are retried until their local
     * deadlines instead of being reported lost at once. The core calls it through {@link #renewEachAsync}; a
     * store whose every renewal call either answers for all holds or fails as a whole need not override it.
     */
    default Renewals renewEach(Collection<HoldRef> holds, Duration lease) {
        return Renewals.allAnswered(holds, renew(holds, lease));
    }

    /**
     * As {@link #renewEach}, for a store whose answer comes only after a wait it need not block a thread for
     * (ZooKeeper proves that its leader heard a renewal with a second {@code sync} a ping interval later): it
     * returns at once and completes the future when the answer is in, so the core goes on renewing the
     * client's other holds meanwhile. The future completes with what {@link #renewEach} would return, or
     * exceptionally with what it would throw, and always completes (the core stops waiting for it after the
     * lease). The core calls this method; by default it runs {@link #renewEach} on the calling thread.
     */
    default CompletableFuture<Renewals> renewEachAsync(Collection<HoldRef> holds, Duration lease) {
        try {
            return CompletableFuture.completedFuture(renewEach(holds, lease));
        } catch (RuntimeException | Error e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Frees {@code name} if {@code ownerId} holds it, and tells waiters. For a store that queues waiters
     * it also removes {@code ownerId} from the queue if it waits there.
     *
     * @return true if this call freed it; false if that owner did not hold it (already released, expired
     *         and taken, or force-released)
     */
    boolean release(String name, String ownerId);

    /**
     * Registers interest, on behalf of the waiting owner {@code ownerId}, in the release that may let it
     * acquire {@code name}: afterwards {@code onRelease} runs (on any thread, quickly) when the store
     * observes such a release. A store that queues waiters watches only the owner's predecessor, and
     * runs {@code onRelease} at once if that predecessor is already gone. The core registers before a
     * waiter's first poll and, for queueing stores, again after every refused attempt. Stores without
     * notifications return a no-op; the waiter then only polls.
     *
     * @return closes the registration
     */
    default AutoCloseable watchReleases(String name, String ownerId, Runnable onRelease) {
        return () -> { };
    }

    /** The state of one lock, or empty if the store has no record of the name. */
    Optional<LockInfo> inspect(String name);

    /** Held locks whose names start with {@code prefix}, in name order, at most {@code limit}. */
    List<LockInfo> list(String prefix, int limit);

    /** Frees {@code name} whoever holds it; true if it was held. */
    boolean forceRelease(String name);

    /** Closes connections; holds are not released by this (the client does that first). */
    @Override
    void close();
}
