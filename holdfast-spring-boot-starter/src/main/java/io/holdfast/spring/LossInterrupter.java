package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.HoldLostListener;

/**
 * Interrupts the thread running a {@link Locked#interruptOnLoss()} method when its hold is lost, only while the method
 * runs: RUNNING → INTERRUPTED (the hold was lost, the thread interrupted once) or RUNNING → FINISHED; from INTERRUPTED
 * only FINISHED. Both moves happen under this object's monitor, so no interrupt reaches the thread after
 * {@link #finish()}.
 */
final class LossInterrupter implements HoldLostListener {
    private enum State { RUNNING, INTERRUPTED, FINISHED }

    private final Thread thread;
    private State state = State.RUNNING;

    private LossInterrupter(Thread thread) {
        this.thread = thread;
    }

    /** Starts watching {@code hold} on behalf of the calling thread. */
    static LossInterrupter watch(Hold hold) {
        LossInterrupter interrupter = new LossInterrupter(Thread.currentThread());
        hold.onLost(interrupter);
        return interrupter;
    }

    @Override
    public synchronized void holdLost(Hold hold, String reason) {
        if (state == State.RUNNING) {
            state = State.INTERRUPTED;
            thread.interrupt();
        }
    }

    /**
     * Called by the method's thread once the method returned or threw: no interrupt follows. Clears the interrupt
     * flag if this object set it.
     *
     * @return whether the thread was interrupted because the hold was lost
     */
    synchronized boolean finish() {
        boolean interrupted = state == State.INTERRUPTED;
        state = State.FINISHED;
        if (interrupted) {
            Thread.interrupted();
        }
        return interrupted;
    }
}
