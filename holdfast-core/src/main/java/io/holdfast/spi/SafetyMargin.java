package io.holdfast.spi;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How long before the store's expiry a hold turns invalid locally: a twentieth of the lease, and at least
 * 250 ms where the lease allows (never more than a quarter of it). It covers clock-rate drift between the
 * client and the store, the time a reply takes to arrive, and a pause of the holder between checking its
 * hold and acting on it. A store whose grant arrives with less than this left of its lease should not
 * grant at all: the hold would be invalid on arrival.
 */
public final class SafetyMargin {
    private SafetyMargin() {
    }

    /** The margin for {@code leaseNanos}, in nanoseconds. */
    public static long nanos(long leaseNanos) {
        return Math.max(leaseNanos / 20, Math.min(TimeUnit.MILLISECONDS.toNanos(250), leaseNanos / 4));
    }

    /** The margin for {@code lease}. */
    public static Duration of(Duration lease) {
        return Duration.ofNanos(nanos(lease.toNanos()));
    }
}
