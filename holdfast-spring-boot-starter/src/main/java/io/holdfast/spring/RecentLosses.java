package io.holdfast.spring;

import io.holdfast.LockListener;

import java.time.Duration;
import java.util.ArrayDeque;

/**
 * Counts the holds the starter's client lost within a window, for the health indicator. Listens only once the
 * starter has registered it on a client ({@link #isAttached()}); keeps at most {@value #MAX_KEPT} losses.
 */
final class RecentLosses implements BackendListenerFactory, LockListener {
    static final int MAX_KEPT = 10_000;

    /** One lost hold, at {@code nanoTime}. */
    record Loss(String lockName, long token, String reason, long nanoTime) {
    }

    /** What {@link #snapshot()} reports: losses within the window, and the last one (null if none). */
    record Snapshot(int count, Loss last) {
    }

    private final long windowNanos;
    private final ArrayDeque<Loss> losses = new ArrayDeque<>();
    private boolean attached;

    RecentLosses(Duration window) {
        this.windowNanos = window.toNanos();
    }

    @Override
    public synchronized LockListener create(String backend) {
        attached = true;
        return this;
    }

    /** Whether a client built by the starter tells this object of its losses. */
    synchronized boolean isAttached() {
        return attached;
    }

    @Override
    public void lost(String lockName, long token, Duration held, String reason) {
        long now = System.nanoTime();
        synchronized (this) {
            losses.addLast(new Loss(lockName, token, reason, now));
            if (losses.size() > MAX_KEPT) {
                losses.removeFirst();
            }
            prune(now);
        }
    }

    synchronized Snapshot snapshot() {
        prune(System.nanoTime());
        return new Snapshot(losses.size(), losses.peekLast());
    }

    private void prune(long now) {
        while (!losses.isEmpty() && now - losses.peekFirst().nanoTime() > windowNanos) {
            losses.removeFirst();
        }
    }
}
