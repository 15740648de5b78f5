package io.holdfast;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.holdfast.spi.HoldRef;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Renews every renewable lease of a client, batched: each round renews, in one store call per lease
 * length (and per {@value #BATCH} holds), every lease that is due within the next sixth of its length.
 * Rounds run one at a time on the renewer's own thread.
 *
 * <p>It also keeps the deadlines of those leases: a round starts by expiring leases whose deadline has
 * passed; a failed renewal is retried no later than the lease's deadline; and while a round's store
 * calls are in flight (a store that hangs may hold them up to its own time-out), a watchdog on the
 * client's timer thread expires any lease whose deadline passes meanwhile.
 */
final class Renewer {
    private static final Logger log = LoggerFactory.getLogger(Renewer.class);
    static final int BATCH = 500;

    private final HoldfastClient client;
    private final ScheduledThreadPoolExecutor thread;
    private final Set<Lease> leases = ConcurrentHashMap.newKeySet();
    // Guarded by this.
    private ScheduledFuture<?> next;
    private long nextAtNanos;
    /** The watchdog of the round in flight, if any. */
    private volatile Watchdog watchdog;

    Renewer(HoldfastClient client, ThreadFactory factory) {
        this.client = client;
        this.thread = new ScheduledThreadPoolExecutor(1, factory);
        this.thread.setRemoveOnCancelPolicy(true);
    }

    void add(Lease lease) {
        leases.add(lease);
        Watchdog w = watchdog;
        if (w != null) {
            w.consider(lease.validUntilNanos());
        }
        schedule(lease.nextRenewAtNanos);
    }

    void remove(Lease lease) {
        leases.remove(lease);
    }

    private synchronized void schedule(long atNanos) {
        if (next != null && !next.isDone() && nextAtNanos - atNanos <= 0) {
            return;
        }
        if (next != null) {
            next.cancel(false);
        }
        nextAtNanos = atNanos;
        try {
            next = thread.schedule(this::round, Math.max(0, atNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            next = null; // shutting down
        }
    }

    private void round() {
        synchronized (this) {
            next = null;
        }
        long now = System.nanoTime();
        Map<Duration, List<Lease>> due = new HashMap<>();
        for (Lease lease : leases) {
            if (lease.expireIfDue(now)) {
                continue;
            }
            if (lease.nextRenewAtNanos - now <= lease.leaseNanos / 6) {
                due.computeIfAbsent(lease.lease, d -> new ArrayList<>()).add(lease);
            }
        }
        if (!due.isEmpty()) {
            Watchdog w = new Watchdog();
            watchdog = w;
            try {
                for (Map.Entry<Duration, List<Lease>> group : due.entrySet()) {
                    List<Lease> all = group.getValue();
                    for (int from = 0; from < all.size(); from += BATCH) {
                        renew(group.getKey(), all.subList(from, Math.min(all.size(), from + BATCH)));
                    }
                }
            } finally {
                watchdog = null;
                w.stop();
            }
        }
        long earliest = Long.MAX_VALUE;
        boolean any = false;
        for (Lease lease : leases) {
            if (!any || lease.nextRenewAtNanos - earliest < 0) {
                earliest = lease.nextRenewAtNanos;
                any = true;
            }
        }
        if (any) {
            schedule(earliest);
        }
    }

    private void renew(Duration leaseLength, List<Lease> batch) {
        List<HoldRef> refs = new ArrayList<>(batch.size());
        for (Lease lease : batch) {
            refs.add(new HoldRef(lease.name, lease.ownerId, lease.token));
        }
        long sent = System.nanoTime();
        try {
            Set<String> renewed = client.store.renew(refs, leaseLength);
            for (Lease lease : batch) {
                if (renewed.contains(lease.ownerId)) {
                    lease.renewed(sent);
                } else if (leases.contains(lease)) {
                    lease.lose("the store no longer has this hold: it expired, was force-released, or another owner took the lock");
                }
            }
        } catch (RuntimeException e) {
            // One line per failure; the stack trace only at debug, so an outage does not flood the log.
            log.warn("renewing {} lease(s) on {} failed, retrying until their deadlines: {}", batch.size(), client.describe(), e.toString());
            log.debug("renewal failure", e);
            long now = System.nanoTime();
            for (Lease lease : batch) {
                lease.renewalFailed(e, now);
            }
        }
    }

    void shutdown() {
        thread.shutdownNow();
    }

    /** Expires leases whose deadlines pass while a round's store calls are in flight. */
    private final class Watchdog {
        // Guarded by this.
        private ScheduledFuture<?> timer;
        private long armedAt;
        private boolean stopped;

        Watchdog() {
            arm();
        }

        /** Arms at the earliest deadline still ahead (those behind are expired or being released). */
        private synchronized void arm() {
            long now = System.nanoTime();
            long earliest = 0;
            boolean any = false;
            for (Lease lease : leases) {
                long at = lease.validUntilNanos();
                if (at - now > 0 && (!any || at - earliest < 0)) {
                    earliest = at;
                    any = true;
                }
            }
            if (any) {
                armAt(earliest);
            }
        }

        /** A lease joined while the round is in flight: make sure its deadline is watched too. */
        synchronized void consider(long at) {
            if (timer == null || timer.isDone() || at - armedAt < 0) {
                armAt(at);
            }
        }

        // Called under this.
        private void armAt(long at) {
            if (stopped) {
                return;
            }
            if (timer != null) {
                timer.cancel(false);
            }
            armedAt = at;
            try {
                timer = client.timers.schedule(this::fire, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                timer = null; // client closing
            }
        }

        private void fire() {
            long now = System.nanoTime();
            for (Lease lease : leases) {
                lease.expireIfDue(now);
            }
            arm();
        }

        synchronized void stop() {
            stopped = true;
            if (timer != null) {
                timer.cancel(false);
            }
        }
    }
}
