package io.holdfast;

/**
 * One acquisition of a distributed lock. A hold belongs to whoever has this object, not to a thread:
 * it can be passed along and released from any thread.
 *
 * <p>A hold is valid from the acquire until it is released or lost. It is lost when its lease could not
 * be renewed in time, when the store says another owner has the lock, or when an operator
 * force-released it; it turns invalid at a local deadline (send time of the last successful acquire or
 * renewal + lease − safety margin) that passes before the store itself frees the lock. Listeners hear
 * of the loss once, on a dedicated thread.
 */
public interface Hold extends AutoCloseable {

    /** The state of a hold. */
    enum State {
        /** Held, and the lease is known to be in force. */
        HELD,
        /** No longer held: see {@link #lossReason()}. */
        LOST,
        /** Released by its owner. */
        RELEASED
    }

    /** The lock's name. */
    String lockName();

    /**
     * The fencing token: greater than every token issued before for this lock name, and the same on
     * re-entry. Pass it to the resource the lock protects, and have the resource reject writes carrying
     * a token lower than the highest it has seen.
     */
    long fencingToken();

    /** True while the hold is {@link State#HELD} and its local deadline has not passed. */
    boolean isValid();

    /** The current state. */
    State state();

    /** Why the hold was lost, or null while it is not {@link State#LOST}. */
    String lossReason();

    /**
     * Throws unless the hold is valid. Call it just before an action the lock guards; a fencing check at
     * the resource is still needed to rule out a pause between this check and the action.
     *
     * @throws LockLostException if the hold is not valid
     */
    void checkValid();

    /**
     * Takes the same lock again for the same owner, without a store call: the new hold has the same
     * fencing token and the lock stays held until this hold and every re-entered one are closed.
     *
     * @throws LockLostException if this hold is no longer valid
     * @throws IllegalStateException if this hold was already released
     */
    Hold reenter();

    /**
     * Adds a listener that is told once if the hold is lost. Added after the loss, it is told at once.
     */
    void onLost(HoldLostListener listener);

    /**
     * Releases this hold. The lock is freed when the last of the holds sharing its owner (see
     * {@link #reenter()}) is released. Calling it again does nothing.
     *
     * @throws LockLostException if the hold had been lost before this release: whatever the hold
     *         guarded may have run concurrently with another holder
     * @throws StoreUnavailableException if the store could not be told; the lock then frees when its lease
     *         runs out
     */
    @Override
    void close();
}
