package io.holdfast.spi;

import java.time.Duration;

/**
 * The outcome of one acquire attempt.
 *
 * @param acquired whether the lock is now held by the requesting owner
 * @param fencingToken the hold's token if acquired, otherwise 0
 * @param holderLeaseRemaining if not acquired: how long the current holder's lease has left by the
 *        store's clock (a hint for the next poll), or null if unknown
 * @param leaseCountedFromNanos if acquired: null, or a {@link System#nanoTime()} instant before which the store
 *        started counting the hold's lease (a store whose holds share one lease, refreshed by a request sent at
 *        that instant, need not refresh it on every acquire); the core then counts the hold's local deadline
 *        from it if it is earlier than the attempt's send time
 */
public record Attempt(boolean acquired, long fencingToken, Duration holderLeaseRemaining, Long leaseCountedFromNanos) {

    /** An outcome whose lease, if acquired, counts from the attempt's send time. */
    public Attempt(boolean acquired, long fencingToken, Duration holderLeaseRemaining) {
        this(acquired, fencingToken, holderLeaseRemaining, null);
    }

    /** An acquired attempt; its lease counts from the attempt's send time. */
    public static Attempt acquired(long fencingToken) {
        return new Attempt(true, fencingToken, null, null);
    }

    /**
     * An acquired attempt whose lease the store counts from {@code leaseCountedFromNanos} (a
     * {@link System#nanoTime()} instant) or earlier, though the attempt may have been sent later.
     */
    public static Attempt acquired(long fencingToken, long leaseCountedFromNanos) {
        return new Attempt(true, fencingToken, null, leaseCountedFromNanos);
    }

    /** A refused attempt. */
    public static Attempt busy(Duration holderLeaseRemaining) {
        return new Attempt(false, 0, holderLeaseRemaining, null);
    }

    /** Where the hold's local deadline counts from for an attempt sent at {@code sentNanos}: the earlier instant. */
    public long leaseStartNanos(long sentNanos) {
        return leaseCountedFromNanos != null && leaseCountedFromNanos - sentNanos < 0 ? leaseCountedFromNanos : sentNanos;
    }
}
