package io.holdfast;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;

/**
 * Watches the local deadlines of a client's held leases with one task on the client's timer thread, due at the
 * earliest deadline it was asked to watch. When the task runs, every lease whose deadline has passed is lost
 * ({@link Lease#isValid}), and the task is scheduled again at the earliest deadline left. A lease whose deadline
 * is no earlier than the task's time schedules nothing, so taking a lock while another deadline is watched (or a
 * released lease's task is still pending) does not wake the timer thread; a renewal, which only moves a deadline
 * later, needs nothing either: a task that comes early finds nothing due and moves on to the next deadline.
 *
 * <p>Invariant: every lease added and still HELD has its deadline at or after the task's due time, or is added
 * before a running task's scan begins (the scan then sees it).
 */
final class Deadlines {
    private final HoldfastClient client;
    private final Set<Lease> leases = ConcurrentHashMap.newKeySet();
    // Guarded by this.
    private ScheduledFuture<?> task;
    private long dueAtNanos;

    Deadlines(HoldfastClient client) {
        this.client = client;
    }

    /** Watches {@code lease}'s deadline until it passes (the lease is then lost) or the lease leaves HELD. */
    void watch(Lease lease) {
        leases.add(lease);
        requestCheckBy(lease.validUntilNanos());
    }

    /** The lease left HELD: nothing to watch. Never blocks (called under the lease's monitor). */
    void forget(Lease lease) {
        leases.remove(lease);
    }

    /** Makes sure a check runs no later than {@code atNanos}; never once the client is closed. */
    private synchronized void requestCheckBy(long atNanos) {
        if (task != null) {
            if (atNanos - dueAtNanos >= 0) {
                return;
            }
            task.cancel(false);
        }
        task = client.schedule(this::check, atNanos - System.nanoTime());
        dueAtNanos = atNanos;
    }

    private void check() {
        synchronized (this) {
            task = null;
        }
        boolean any = false;
        long earliest = 0;
        for (Lease lease : leases) {
            if (!lease.isValid()) { // a passed deadline makes it lost here
                leases.remove(lease);
                continue;
            }
            long until = lease.validUntilNanos();
            if (!any || until - earliest < 0) {
                earliest = until;
                any = true;
            }
        }
        if (any) {
            requestCheckBy(earliest);
        }
    }
}
