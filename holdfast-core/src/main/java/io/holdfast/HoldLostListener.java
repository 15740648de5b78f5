package io.holdfast;

/** Told when a {@link Hold} is lost. Called on Holdfast's event thread; keep it short. */
@FunctionalInterface
public interface HoldLostListener {

    /**
     * @param hold the lost hold
     * @param reason what happened, for a log line
     */
    void holdLost(Hold hold, String reason);
}
