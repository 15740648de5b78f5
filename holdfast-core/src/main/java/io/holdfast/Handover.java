package io.holdfast;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What a {@link PermitAcquisition} hands over when it is done: the gate and permits it held, to give to the hold or
 * back to the store, and the waits still in flight, to end.
 */
record Handover(Hold gate, List<Hold> permits, List<CompletableFuture<Hold>> waits) {

    void cancelWaits() {
        for (CompletableFuture<Hold> w : waits) {
            w.cancel(false); // a grant racing it is released by the lock's own wait, or by the acquisition's callback
        }
    }

    /** Releases the permits, newest first, then the gate; quietly (their leases free what the store was not told of). */
    void giveBack() {
        for (int i = permits.size() - 1; i >= 0; i--) {
            releaseQuietly(permits.get(i));
        }
        releaseQuietly(gate);
    }

    static void releaseQuietly(Hold hold) {
        if (hold != null) {
            try {
                hold.close();
            } catch (RuntimeException e) {
                // lost, or the store could not be told: the lease frees it
            }
        }
    }

    /** The error a part's wait or attempt ended with, as the acquire reports it. */
    static RuntimeException unwrap(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof CancellationException) {
            return new IllegalStateException("a wait was cancelled", cause);
        }
        return cause instanceof RuntimeException re ? re : new HoldfastException("acquiring failed", cause);
    }
}
