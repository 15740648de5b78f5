package io.holdfast;

import io.holdfast.spi.StoreTraits;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * How long a waiter sleeps before its next poll: doubling from 10 ms up to the store's maximum, never long past
 * the holder's lease, with ±20 % jitter so that waiters of several clients do not poll in step.
 */
final class PollBackoff {
    private static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private PollBackoff() {
    }

    /**
     * @param polls polls made so far in this wait
     * @param holderHint the holder's lease left as the last refusal said, or null if unknown
     */
    static long delayNanos(StoreTraits traits, int polls, Duration holderHint) {
        long max = traits.maxPollInterval().toNanos();
        // A store that wakes each waiter's own predecessor is polled only as a fallback.
        long first = traits.notifiesReleases() && traits.queuesWaiters() ? Math.max(FIRST_POLL_NANOS, max / 4) : FIRST_POLL_NANOS;
        long delay = Math.min(max, first << Math.min(polls, 20));
        if (holderHint != null) {
            // No point polling long before the holder's lease runs out, nor long after.
            delay = Math.min(delay, Math.max(0, holderHint.toNanos()) + TimeUnit.MILLISECONDS.toNanos(5));
        }
        return (long) (delay * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble()));
    }
}
