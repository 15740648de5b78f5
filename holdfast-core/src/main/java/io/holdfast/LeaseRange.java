package io.holdfast;

import io.holdfast.spi.LockStore;
import io.holdfast.spi.StoreTraits;

import java.time.Duration;

/**
 * The leases one store can keep: the core's range ({@link Durations#MIN_LEASE} to {@link Durations#MAX_LEASE})
 * narrowed by the store's {@link StoreTraits#minLease()} and {@link StoreTraits#maxLease()}. Every refusal names
 * this range, so a message never promises a lease the store would refuse.
 */
final class LeaseRange {
    /** The lease of {@link Holdfast#lock(String)} unless the application sets one or the store keeps less. */
    static final Duration CORE_DEFAULT = Duration.ofSeconds(30);

    final Duration min;
    final Duration max;
    private final StoreTraits traits;
    private final String backend;
    private final String address;

    LeaseRange(LockStore store) {
        this.traits = store.traits();
        this.backend = store.backend();
        this.address = store.address();
        this.min = later(Durations.MIN_LEASE, traits.minLease());
        this.max = earlier(Durations.MAX_LEASE, traits.maxLease());
        if (min.compareTo(max) > 0) {
            throw new IllegalArgumentException("the " + backend + " store at " + address + " can keep no lease: its longest, "
                    + Durations.format(max) + " (set by " + traits.maxLeaseLimitedBy() + "), is shorter than its shortest, "
                    + Durations.format(min));
        }
    }

    /**
     * Returns {@code lease} if the store can keep it.
     *
     * @throws IllegalArgumentException naming this store's range (and what limits its top), if not
     */
    Duration require(Duration lease) {
        String allowed = "allowed: " + Durations.format(min) + " to " + Durations.format(max);
        if (lease == null) {
            throw new IllegalArgumentException("lease is null; " + allowed);
        }
        if (lease.compareTo(min) < 0) {
            throw new IllegalArgumentException(traits.minLease().compareTo(Durations.MIN_LEASE) > 0
                    ? "lease " + Durations.format(lease) + " is shorter than the " + backend + " backend can keep; " + allowed
                    : "lease " + Durations.format(lease) + " is too short; it must be at least " + Durations.format(min) + " (" + allowed + ")");
        }
        if (lease.compareTo(max) > 0) {
            throw new IllegalArgumentException(traits.limitsMaxLease()
                    ? "lease " + Durations.format(lease) + " is longer than the " + backend + " store at " + address + " can keep; "
                            + allowed + " (set by " + traits.maxLeaseLimitedBy() + ")"
                    : "lease " + Durations.format(lease) + " is too long; it must be at most " + Durations.format(max) + " (" + allowed + ")");
        }
        return lease;
    }

    /**
     * The client's default lease: {@code chosen} (checked) if the application set one, else {@link #CORE_DEFAULT}
     * brought into this store's range (a store that keeps no lease of 30 s gets its longest).
     */
    Duration defaultLease(Duration chosen) {
        if (chosen != null) {
            return require(chosen);
        }
        return earlier(later(CORE_DEFAULT, min), max);
    }

    private static Duration later(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static Duration earlier(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
