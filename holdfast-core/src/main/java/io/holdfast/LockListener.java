package io.holdfast;

import java.time.Duration;

/**
 * Told what a client's locks do, for metrics, logs and alerts; register one with
 * {@link HoldfastBuilder#listener(LockListener)}. Every method has an empty default, so a listener implements
 * only what it needs.
 *
 * <p>Guarantees: for every {@link #acquireStarted} exactly one {@link #acquireEnded} follows with the same
 * {@code lockName}; for every {@code acquireEnded} with {@link AcquireOutcome#ACQUIRED} exactly one of
 * {@link #released} or {@link #lost} follows once the owner's lease ends. A hold here is one owner's lease:
 * {@link Hold#reenter()} shares it and is not told. So "acquires started minus ended" counts waits in progress,
 * and "acquired minus released minus lost" counts holds in force, at any moment.
 *
 * <p>Order: an acquire's end is told before the acquire returns or throws, or completes its future (an abandoned
 * wait: as the caller's cancel, interrupt or completion, or the client's close, takes effect); a hold's
 * {@code ACQUIRED} is told before anything can end it, so always before its {@code released} or {@code lost};
 * {@code renewalFailed} is told only while the hold is in force. A grant that arrives as its caller gives up, or
 * as the client closes, is told {@code ACQUIRED} and then {@code released} at once (nothing leaks).
 *
 * <p>Calls come from whichever thread saw the event (the caller, the client's I/O, timer or renewer threads),
 * possibly concurrently, never while the core holds a lock of its own; keep them short and never block or call
 * back into Holdfast from them: a slow listener slows the lock's callers. Whatever a listener throws (an
 * exception or an {@link Error}) is logged and otherwise ignored, and the other listeners are still told; the
 * first failure of each listener is logged at ERROR, later ones at DEBUG.
 */
public interface LockListener {

    /** How an acquire ended. */
    enum AcquireOutcome {
        /** The lock was acquired. */
        ACQUIRED,
        /** The lock was held by another owner until the wait ran out. */
        TIMED_OUT,
        /**
         * The lock was held by another owner and the call did not wait: a refused {@code tryAcquire()} (a skip, not a
         * wait that ran out, so that callers who skip by design are not counted as timeouts).
         */
        BUSY,
        /** The caller was interrupted, cancelled or completed the future, or the client closed. */
        ABANDONED,
        /**
         * The store failed (unreachable, misconfigured, an unexpected error), including a wait that ran out while
         * the store stayed unreachable (the caller gets its {@link StoreUnavailableException}).
         */
        FAILED
    }

    /** An acquire of {@code lockName} began (any of {@link DistributedLock}'s acquire methods). */
    default void acquireStarted(String lockName) {
    }

    /**
     * The acquire ended.
     *
     * @param waited from the call to its end
     * @param token the fencing token if {@code outcome} is {@link AcquireOutcome#ACQUIRED}, otherwise 0
     */
    default void acquireEnded(String lockName, AcquireOutcome outcome, Duration waited, long token) {
    }

    /** The owner released its hold (its last re-entered hold closed). {@code held}: from grant to release. */
    default void released(String lockName, long token, Duration held) {
    }

    /** The hold was lost (lease ran out, store disowned it, force-released); told once, like {@link HoldLostListener}. */
    default void lost(String lockName, long token, Duration held, String reason) {
    }

    /**
     * One renewal round of this hold failed (the store was unreachable or slow); the hold stays valid until its
     * deadline and renewal goes on. Repeated failures end in {@link #lost}.
     */
    default void renewalFailed(String lockName, long token, Throwable error) {
    }
}
