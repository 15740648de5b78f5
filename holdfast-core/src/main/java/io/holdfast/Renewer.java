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

    Renewer(HoldfastClient client, ThreadFactory factory) {
        this.client = client;
        this.thread = new ScheduledThreadPoolExecutor(1, factory);
        this.thread.setRemoveOnCancelPolicy(true);
    }

    void add(Lease lease) {
        leases.add(lease);
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
            if (lease.nextRenewAtNanos - now <= lease.leaseNanos / 6) {
                due.computeIfAbsent(lease.lease, d -> new ArrayList<>()).add(lease);
            }
        }
        for (Map.Entry<Duration, List<Lease>> group : due.entrySet()) {
            List<Lease> all = group.getValue();
            for (int from = 0; from < all.size(); from += BATCH) {
                renew(group.getKey(), all.subList(from, Math.min(all.size(), from + BATCH)));
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
            log.warn("renewing {} lease(s) on {} failed; retrying until their deadlines", batch.size(), client.describe(), e);
            long now = System.nanoTime();
            for (Lease lease : batch) {
                lease.renewalFailed(e, now);
            }
        }
    }

    void shutdown() {
        thread.shutdownNow();
    }
}
