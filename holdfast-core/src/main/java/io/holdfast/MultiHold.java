package io.holdfast;

import java.util.List;

/**
 * A hold on every lock of a {@link MultiLock}. Like a {@link Hold} it belongs to whoever has the object, not to
 * a thread, and each part keeps its own lease (renewed in the client's batches) and fencing token.
 *
 * <p>A loss of any part is a loss of the whole: the multi-hold is valid only while every part is,
 * {@link #checkValid()} names the part that was lost, listeners are told once, and {@link #close()} throws
 * {@link LockLostException} after it has released every other part.
 */
public interface MultiHold extends AutoCloseable {

    /** The lock names, ascending. */
    List<String> lockNames();

    /**
     * The fencing token of the part called {@code name}: greater than every token issued before for that name.
     *
     * @throws IllegalArgumentException if {@code name} is not one of {@link #lockNames()}
     */
    long fencingToken(String name);

    /** True while every part is held and before its local deadline, and the hold has not been closed. */
    boolean isValid();

    /** {@link Hold.State#HELD} until a part is lost ({@link Hold.State#LOST}) or the hold is closed. */
    Hold.State state();

    /** Which part was lost and why, or null while the hold is not {@link Hold.State#LOST}. */
    String lossReason();

    /**
     * Throws unless every part is valid. Call it just before an action the locks guard; fencing checks at the
     * resources are still needed to rule out a pause between this check and the action.
     *
     * @throws LockLostException naming the lost part, if one is lost, or if the hold was closed
     */
    void checkValid();

    /**
     * Adds a listener told once, on Holdfast's event thread, with the first part that was lost and why. Added
     * after the loss, it is told at once.
     */
    void onLost(HoldLostListener listener);

    /**
     * Releases every part, in the reverse of the order they were taken. Calling it again does nothing.
     *
     * @throws LockLostException if a part had been lost: whatever the hold guarded may have run alongside
     *         another holder of that name; every other part is released all the same
     * @throws StoreUnavailableException if the store could not be told of a part's release (that part frees
     *         when its lease runs out); every other part is released all the same
     */
    @Override
    void close();
}
