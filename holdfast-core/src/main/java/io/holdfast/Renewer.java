package io.holdfast;

import io.holdfast.spi.HoldRef;
import io.holdfast.spi.Renewals;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Renews every renewable lease of a client, batched: each round renews, in one store call per lease
 * length (and per {@value #BATCH} holds), every lease due within the next sixth of its length. Rounds run
 * one at a time on the renewer's own thread, and whatever a round meets (an answer, an error, an
 * {@link Error} thrown by a store) the next round is scheduled: renewal never stops silently. Deadlines
 * are not the renewer's business: each {@link Lease} watches its own, so a round stuck in a store call
 * cannot delay a loss.
 *
 * <p>A store may answer a renewal later ({@link io.holdfast.spi.LockStore#renewEachAsync}: ZooKeeper waits a
 * ping interval for its proof). The round does not wait for it: the batch's leases are <i>in flight</i>,
 * skipped by later rounds, until the answer arrives (on any thread, at the latest a lease after the call),
 * which applies it and asks for a round by their next renewal. So one batch's wait never holds up the
 * renewal of the client's other holds.
 *
 * <pre>
 *   IDLE ──add──▶ SCHEDULED ──due──▶ RUNNING ──round ends, leases left──▶ SCHEDULED
 *                     ▲ add (earlier)    │ add: remembered, scheduled when the round ends
 *                                        └──round ends, no lease left──▶ IDLE
 *   any ──client closed──▶ STOPPED
 * </pre>
 * Invariant: a round is scheduled exactly in SCHEDULED, and at most one round runs at a time.
 */
final class Renewer {
    private static final Logger log = LoggerFactory.getLogger(Renewer.class);
    static final int BATCH = 500;
    static final String NOT_HELD = "the store no longer has this hold: it expired, was force-released, or another owner took the lock";

    enum State { IDLE, SCHEDULED, RUNNING, STOPPED }

    private final HoldfastClient client;
    private final ScheduledThreadPoolExecutor thread;
    private final Set<Lease> leases = ConcurrentHashMap.newKeySet();
    /** Leases whose renewal was sent and is not answered yet. */
    private final Set<Lease> inFlight = ConcurrentHashMap.newKeySet();
    // Guarded by this.
    private State state = State.IDLE;
    private ScheduledFuture<?> next;
    private long nextAtNanos;
    /** While RUNNING: the earliest time an added lease asked for, if any. */
    private Long requestedAtNanos;
    /** Which scheduled round is the current one; a replaced round that starts anyway does nothing. */
    private long generation;

    Renewer(HoldfastClient client, ThreadFactory factory) {
        this.client = client;
        this.thread = new ScheduledThreadPoolExecutor(1, factory);
        this.thread.setRemoveOnCancelPolicy(true);
    }

    void add(Lease lease) {
        leases.add(lease);
        requestRoundBy(lease.nextRenewAtNanos);
    }

    void remove(Lease lease) {
        leases.remove(lease);
    }

    /** Makes sure a round runs no later than {@code atNanos}. */
    private synchronized void requestRoundBy(long atNanos) {
        switch (state) {
            case IDLE -> scheduleAt(atNanos);
            case SCHEDULED -> {
                if (atNanos - nextAtNanos < 0) {
                    next.cancel(false);
                    scheduleAt(atNanos);
                }
            }
            case RUNNING -> requestedAtNanos = requestedAtNanos == null || atNanos - requestedAtNanos < 0 ? atNanos : requestedAtNanos;
            case STOPPED -> { }
        }
    }

    // Called under this; enters SCHEDULED (or STOPPED if the thread is gone).
    private void scheduleAt(long atNanos) {
        long mine = ++generation;
        try {
            next = thread.schedule(() -> round(mine), Math.max(0, atNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            nextAtNanos = atNanos;
            state = State.SCHEDULED;
        } catch (RejectedExecutionException e) {
            next = null;
            state = State.STOPPED;
        }
    }

    private void round(long scheduled) {
        synchronized (this) {
            if (state != State.SCHEDULED || scheduled != generation) {
                return; // stopped, or a round that was replaced by an earlier one
            }
            state = State.RUNNING;
            next = null;
            requestedAtNanos = null;
        }
        try {
            renewDue();
        } finally {
            roundEnded();
        }
    }

    private void renewDue() {
        long now = System.nanoTime();
        Map<Duration, List<Lease>> due = new HashMap<>();
        for (Lease lease : leases) {
            if (!lease.isValid()) {
                leases.remove(lease); // its deadline passed (now lost) or it was released
            } else if (!inFlight.contains(lease) && lease.nextRenewAtNanos - now <= lease.leaseNanos / 6) {
                due.computeIfAbsent(lease.lease, d -> new ArrayList<>()).add(lease);
            }
        }
        for (Map.Entry<Duration, List<Lease>> group : due.entrySet()) {
            List<Lease> all = group.getValue();
            for (int from = 0; from < all.size(); from += BATCH) {
                renew(group.getKey(), all.subList(from, Math.min(all.size(), from + BATCH)));
            }
        }
    }

    private void roundEnded() {
        long earliest = 0;
        boolean any = false;
        for (Lease lease : leases) {
            if (!inFlight.contains(lease) && (!any || lease.nextRenewAtNanos - earliest < 0)) {
                earliest = lease.nextRenewAtNanos;
                any = true;
            }
        }
        synchronized (this) {
            if (state != State.RUNNING) {
                return; // stopped meanwhile
            }
            if (requestedAtNanos != null && (!any || requestedAtNanos - earliest < 0)) {
                earliest = requestedAtNanos;
                any = true;
            }
            if (any) {
                scheduleAt(earliest);
            } else {
                state = State.IDLE;
            }
        }
    }

    /** Sends one batch's renewal; its answer is applied by {@link #answered}, now or when it arrives. */
    private void renew(Duration leaseLength, List<Lease> batch) {
        List<Lease> mine = List.copyOf(batch);
        List<HoldRef> refs = new ArrayList<>(mine.size());
        for (Lease lease : mine) {
            refs.add(new HoldRef(lease.name, lease.ownerId, lease.token));
        }
        inFlight.addAll(mine);
        long sent = System.nanoTime();
        CompletableFuture<Renewals> outcome;
        try {
            outcome = client.store.renewEachAsync(refs, leaseLength);
        } catch (RuntimeException | Error e) {
            outcome = CompletableFuture.failedFuture(e);
        }
        outcome.orTimeout(leaseLength.toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((renewals, error) -> answered(mine, sent, renewals, error));
    }

    /** Applies a batch's answer (or failure), takes its leases out of flight and asks for their next round. */
    private void answered(List<Lease> batch, long sent, Renewals outcome, Throwable failure) {
        try {
            if (failure != null) {
                failed(batch, failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure);
            } else {
                apply(batch, sent, outcome);
            }
        } finally {
            inFlight.removeAll(batch);
            long earliest = 0;
            boolean any = false;
            for (Lease lease : batch) {
                if (leases.contains(lease) && (!any || lease.nextRenewAtNanos - earliest < 0)) {
                    earliest = lease.nextRenewAtNanos;
                    any = true;
                }
            }
            if (any) {
                requestRoundBy(earliest);
            }
        }
    }

    private void failed(List<Lease> batch, Throwable e) {
        // One line per failure; the stack trace only at debug, so an outage does not flood the log.
        log.warn("renewing {} lease(s) on {} failed, retrying until their deadlines: {}", batch.size(), client.describe(), e.toString());
        log.debug("renewal failure", e);
        Exception error = e instanceof Exception ex ? ex : new HoldfastException("renewal failed: " + e, e);
        long now = System.nanoTime();
        for (Lease lease : batch) {
            lease.renewalFailed(error, now);
        }
    }

    private void apply(List<Lease> batch, long sent, Renewals outcome) {
        long now = System.nanoTime();
        for (Lease lease : batch) {
            if (outcome.renewed().contains(lease.ownerId)) {
                lease.renewed(sent);
            } else if (outcome.notHeld().contains(lease.ownerId)) {
                if (leases.contains(lease)) {
                    lease.loseIfHeld(NOT_HELD);
                }
            } else {
                lease.renewalFailed(new StoreUnavailableException(client.store.backend(), client.store.address(),
                        "no answer for the renewal of '" + lease.name + "'", null), now);
            }
        }
    }

    void shutdown() {
        synchronized (this) {
            state = State.STOPPED;
            if (next != null) {
                next.cancel(false);
                next = null;
            }
        }
        thread.shutdownNow();
    }
}
