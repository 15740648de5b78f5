package io.holdfast.zookeeper;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicReference;

/** One owner's queue node, as this client created or adopted it. */
final class QueueNode {
    final String owner;
    final String name;
    final String dir;
    final String child;
    final String path;
    final long czxid;
    final long sessionId;
    final Session session;
    final long leaseMs;
    volatile String predecessor;
    volatile boolean acquired;
    /** When the directory was last listed for this node (System.nanoTime()). */
    volatile long listedAtNanos;
    /**
     * The instant the core's local deadline for this hold counts from, at the latest: when the acquire
     * or the last renewal reported to the core was sent (System.nanoTime()).
     */
    volatile long basisNanos;
    /** A listing requested when the predecessor went away, for the attempt that wake-up causes. */
    final AtomicReference<CompletableFuture<List<String>>> prefetched = new AtomicReference<>();
    // Guarded by this.
    ScheduledFuture<?> expiry;

    QueueNode(String owner, String name, String dir, String child, long czxid, long sessionId, Session session, long leaseMs) {
        this.owner = owner;
        this.name = name;
        this.dir = dir;
        this.child = child;
        this.path = dir + "/" + child;
        this.czxid = czxid;
        this.sessionId = sessionId;
        this.session = session;
        this.leaseMs = leaseMs;
    }

    /** Cancels the lease timer, if any. */
    void cancelExpiry() {
        synchronized (this) {
            if (expiry != null) {
                expiry.cancel(false);
                expiry = null;
            }
        }
    }
}
