package io.holdfast.spi;

import java.time.Duration;

/**
 * What a store can promise.
 *
 * @param consistency one line on the exclusion guarantee, for docs and {@code holdfast status}
 * @param notifiesReleases whether {@link LockStore#watchReleases} delivers notifications
 * @param minLease the shortest lease the store can keep (its expiry granularity)
 * @param maxPollInterval the longest pause between two polls of a waiter
 * @param queuesWaiters whether a refused attempt leaves its owner queued in the store (ZooKeeper's
 *        sequential nodes, etcd's revisions) until it acquires or is released; the core then releases
 *        the owner of every attempt it gives up
 */
public record StoreTraits(String consistency, boolean notifiesReleases, Duration minLease, Duration maxPollInterval,
                          boolean queuesWaiters) {

    /** Traits of a store whose refused attempts leave nothing behind. */
    public StoreTraits(String consistency, boolean notifiesReleases, Duration minLease, Duration maxPollInterval) {
        this(consistency, notifiesReleases, minLease, maxPollInterval, false);
    }
}
