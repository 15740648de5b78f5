package io.holdfast.spi;

import java.time.Duration;

/**
 * What a store can promise.
 *
 * @param consistency one line on the exclusion guarantee, for docs and {@code holdfast status}
 * @param notifiesReleases whether {@link LockStore#watchReleases} delivers notifications
 * @param minLease the shortest lease the store can keep (its expiry granularity)
 * @param maxPollInterval the longest pause between two polls of a waiter
 */
public record StoreTraits(String consistency, boolean notifiesReleases, Duration minLease, Duration maxPollInterval) {
}
