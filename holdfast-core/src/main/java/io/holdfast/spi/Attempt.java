package io.holdfast.spi;

import java.time.Duration;

/**
 * The outcome of one acquire attempt.
 *
 * @param acquired whether the lock is now held by the requesting owner
 * @param fencingToken the hold's token if acquired, otherwise 0
 * @param holderLeaseRemaining if not acquired: how long the current holder's lease has left by the
 *        store's clock (a hint for the next poll), or null if unknown
 */
public record Attempt(boolean acquired, long fencingToken, Duration holderLeaseRemaining) {

    /** An acquired attempt. */
    public static Attempt acquired(long fencingToken) {
        return new Attempt(true, fencingToken, null);
    }

    /** A refused attempt. */
    public static Attempt busy(Duration holderLeaseRemaining) {
        return new Attempt(false, 0, holderLeaseRemaining);
    }
}
