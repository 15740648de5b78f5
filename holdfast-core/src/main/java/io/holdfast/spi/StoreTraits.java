package io.holdfast.spi;

import io.holdfast.Durations;

import java.time.Duration;
import java.util.Objects;

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
 * @param maxLease the longest lease the store can keep; {@link Durations#MAX_LEASE} for a store with no limit
 *        of its own. The core refuses longer leases when a lock is made, and shortens its 30 s default lease
 *        to this when it is longer and the application did not set one
 * @param maxLeaseLimitedBy what sets {@code maxLease}, for the refusal's message (for example "the servers'
 *        maxSessionTimeout"); empty for a store with no limit of its own
 */
public record StoreTraits(String consistency, boolean notifiesReleases, Duration minLease, Duration maxPollInterval,
                          boolean queuesWaiters, Duration maxLease, String maxLeaseLimitedBy) {

    /** Checks the leases: both positive, and the maximum at most the core's, with its reason if below it. */
    public StoreTraits {
        Objects.requireNonNull(minLease, "minLease");
        Objects.requireNonNull(maxLease, "maxLease");
        Objects.requireNonNull(maxLeaseLimitedBy, "maxLeaseLimitedBy");
        if (maxLease.compareTo(Durations.MAX_LEASE) > 0) {
            maxLease = Durations.MAX_LEASE; // the core never allows more
        }
        if (maxLease.compareTo(Durations.MAX_LEASE) < 0 && maxLeaseLimitedBy.isBlank()) {
            throw new IllegalArgumentException("a store's maximum lease below the core's " + Durations.format(Durations.MAX_LEASE)
                    + " needs its reason (maxLeaseLimitedBy)");
        }
    }

    /** Traits of a store with no lease limit beyond the core's {@link Durations#MAX_LEASE}. */
    public StoreTraits(String consistency, boolean notifiesReleases, Duration minLease, Duration maxPollInterval,
                       boolean queuesWaiters) {
        this(consistency, notifiesReleases, minLease, maxPollInterval, queuesWaiters, Durations.MAX_LEASE, "");
    }

    /** Traits of a store whose refused attempts leave nothing behind and whose leases only the core limits. */
    public StoreTraits(String consistency, boolean notifiesReleases, Duration minLease, Duration maxPollInterval) {
        this(consistency, notifiesReleases, minLease, maxPollInterval, false);
    }

    /**
     * These traits with the store's own longest lease, {@code max}, set by {@code limitedBy} (a phrase such as
     * "the servers' maxSessionTimeout, which bounds a session"). A {@code max} above the core's is the core's.
     */
    public StoreTraits withMaxLease(Duration max, String limitedBy) {
        return new StoreTraits(consistency, notifiesReleases, minLease, maxPollInterval, queuesWaiters, max, limitedBy);
    }

    /** Whether the store keeps no lease as long as the core allows. */
    public boolean limitsMaxLease() {
        return maxLease.compareTo(Durations.MAX_LEASE) < 0;
    }
}
