package io.holdfast;

/**
 * Permits of a {@link DistributedSemaphore}, or a read or write hold of a {@link DistributedReadWriteLock}, taken
 * in one acquisition. Like a {@link Hold} it belongs to whoever has the object, not to a thread, and each permit
 * keeps its own lease, renewed in the client's batches.
 *
 * <p>A loss of any permit is a loss of the whole: the hold is valid only while every permit is, listeners are told
 * once, and {@link #close()} throws {@link LockLostException} after it has given back the other permits.
 */
public interface PermitHold extends AutoCloseable {

    /** The semaphore's (or read-write lock's) name. */
    String name();

    /** How many permits this hold has now. */
    int permits();

    /**
     * The fencing token of this acquisition: greater than every token issued before by any acquisition of this
     * name, read or write; kept by {@link #downgrade()}. A resource that fences writers compares the tokens of
     * writes: a reader's token is greater than those of the writes before it.
     */
    long fencingToken();

    /** True while every permit is held and before its local deadline, and the hold has not been closed. */
    boolean isValid();

    /** {@link Hold.State#HELD} until a permit is lost ({@link Hold.State#LOST}) or the hold is closed. */
    Hold.State state();

    /** Which permit was lost and why, or null while the hold is not {@link Hold.State#LOST}. */
    String lossReason();

    /**
     * Throws unless every permit is valid. Call it just before an action the permits guard; a fencing check at the
     * resource is still needed to rule out a pause between this check and the action.
     *
     * @throws LockLostException naming the lost permit, if one is lost, or if the hold was closed
     */
    void checkValid();

    /**
     * Adds a listener told once, on Holdfast's event thread, with the permit's hold that was lost and why. Added
     * after the loss, it is told at once.
     */
    void onLost(HoldLostListener listener);

    /**
     * Keeps one permit and gives back the others, without letting go in between: a write hold of a read-write lock
     * becomes a read hold with the same token, so other readers can come in but no writer. A hold of one permit is
     * left as it is. A permit the store could not be told of frees when its lease runs out.
     *
     * @throws LockLostException if the hold is lost, or a permit given back turned out lost; the permits to give
     *         back are given back all the same, and the hold is then lost
     * @throws IllegalStateException if the hold was closed
     */
    void downgrade();

    /**
     * Gives back every permit. Calling it again does nothing.
     *
     * @throws LockLostException if a permit had been lost: whatever the hold guarded may have run alongside other
     *         holders; every other permit is given back all the same
     * @throws StoreUnavailableException if the store could not be told of a permit's release (that permit frees when
     *         its lease runs out); every other permit is given back all the same
     */
    @Override
    void close();
}
