package io.holdfast;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What a {@link PermitAcquisition} hands over when it moves to CHECKING or DONE: the gate and permits it held, and
 * the waits still in flight, to end; and the two ways it then ends: to a hold, or back to the store. Either way,
 * {@code settled} completes once the acquire holds nothing more.
 */
record Handover(Hold gate, List<Hold> permits, List<CompletableFuture<Hold>> waits) {

    void cancelWaits() {
        for (CompletableFuture<Hold> w : waits) {
            w.cancel(false); // a grant racing it is released by the lock's own wait, or by the acquisition's callback
        }
    }

    /** The gate if it is no longer valid, else the first permit that is not; null while every one is valid. */
    Hold firstLost() {
        if (!gate.isValid()) { // isValid() turns a hold past its local deadline lost
            return gate;
        }
        return permits.stream().filter(p -> !p.isValid()).findFirst().orElse(null);
    }

    /** Releases the permits, newest first; quietly (their leases free what the store was not told of). */
    void givePermitsBack() {
        for (int i = permits.size() - 1; i >= 0; i--) {
            HoldfastClient.closeQuietly(permits.get(i));
        }
    }

    /**
     * Ends the waits, then, on the client's I/O pool (never on the thread that completed the future: the caller's,
     * or the JDK's one delayer thread for {@code orTimeout}), gives back the permits and the gate, settles, and fails
     * {@code future} with {@code error} unless it is null (the caller completed the future).
     */
    void giveBack(HoldfastClient client, CompletableFuture<PermitHold> future, CompletableFuture<Void> settled,
                  RuntimeException error) {
        cancelWaits();
        client.runInBackground(() -> {
            givePermitsBack();
            HoldfastClient.closeQuietly(gate);
            settled.complete(null);
            if (error != null) {
                future.completeExceptionally(error);
            }
        });
    }

    /**
     * Every part is valid: completes {@code future} with a hold of the permits and the gate's token, releasing the
     * gate first, so that the next acquire's token is greater; if the caller gave up as the last permit came, the
     * permits are given back on the I/O pool.
     */
    void handTo(HoldfastClient client, String name, CompletableFuture<PermitHold> future, CompletableFuture<Void> settled) {
        SlotsHold hold = new SlotsHold(name, gate.fencingToken(), permits);
        HoldfastClient.closeQuietly(gate);
        if (future.complete(hold)) {
            settled.complete(null);
            return;
        }
        client.runInBackground(() -> {
            HoldfastClient.closeQuietly(hold);
            settled.complete(null);
        });
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
