package io.holdfast.etcd;

import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.holdfast.Durations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The store's sessions: one etcd lease per lease length in use (in whole seconds; usually just the
 * client's default), granted on first use. Every key of a hold or a queued waiter is attached to the
 * session of its lease length, so the key goes when the session's lease runs out on the etcd leader's
 * clock, which is what frees the locks of a crashed or paused holder.
 *
 * <p>A session's lease is refreshed by every renewal that uses it (a keep-alive sent together with its reads),
 * by an acquire attempt when the last keep-alive was sent more than a twentieth of the hold's lease earlier, and
 * in the background a third of its TTL after the last one, so that queued waiters, who make no calls while they
 * wait, keep their place. The TTL is the hold's lease rounded up to a whole second: never shorter than the hold's
 * lease. So a hold whose local deadline counts from the send time of a keep-alive that succeeded (or of a renewal
 * or acquire sent before it) passes that deadline before etcd can expire its key.
 */
final class SessionLeases {
    private static final Logger log = LoggerFactory.getLogger(SessionLeases.class);

    /**
     * One keep-alive (or the grant) of a session lease: etcd's expiry of the lease is at least {@code sentNanos} +
     * TTL once {@code reply} completes normally.
     */
    record KeepAlive(long sentNanos, CompletableFuture<?> reply) {
    }

    /** One etcd lease. */
    static final class Session {
        final long ttlSeconds;
        final long leaseId;
        private volatile boolean dead;
        /** When the next background keep-alive is due (System.nanoTime). */
        private volatile long nextKeepAliveNanos;
        private volatile boolean keepAliveInFlight;
        /** The keep-alive sent last. Written under this. */
        private volatile KeepAlive latest;

        Session(long ttlSeconds, long leaseId, long grantSentNanos) {
            this.ttlSeconds = ttlSeconds;
            this.leaseId = leaseId;
            this.latest = new KeepAlive(grantSentNanos, CompletableFuture.completedFuture(null));
            this.nextKeepAliveNanos = grantSentNanos + interval();
        }

        boolean isDead() {
            return dead;
        }

        private long interval() {
            return Math.max(TimeUnit.MILLISECONDS.toNanos(200), TimeUnit.SECONDS.toNanos(ttlSeconds) / 3);
        }

        @Override
        public String toString() {
            return "session lease " + Long.toHexString(leaseId) + " (ttl " + ttlSeconds + "s" + (dead ? ", expired" : "") + ")";
        }
    }

    private final Lease leases;
    private final EtcdCalls calls;
    private final Duration timeout;
    private final ConcurrentHashMap<Long, Session> byTtl = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Object> grantLocks = new ConcurrentHashMap<>();
    /** The shortest TTL the cluster granted when asked for less, 0 until it has done so. */
    private volatile long clusterMinimumTtl;

    SessionLeases(Lease leases, EtcdCalls calls, Duration timeout) {
        this.leases = leases;
        this.calls = calls;
        this.timeout = timeout;
    }

    /** The TTL, in whole seconds, of the session for holds of {@code lease}: the lease rounded up. */
    static long ttlSeconds(Duration lease) {
        long ms = lease.toMillis();
        return Math.max(1, (ms + 999) / 1000);
    }

    /** The live session for {@code lease}, or null if there is none (never granted, or expired). */
    Session current(Duration lease) {
        Session s = byTtl.get(ttlSeconds(lease));
        return s == null || s.dead ? null : s;
    }

    /**
     * The live session for {@code lease}, granted now if there is none.
     *
     * @throws IllegalArgumentException if the cluster keeps no lease that short (etcd's minimum TTL is one
     *         and a half election timeouts): a crashed holder's lock could then outlive its lease
     */
    Session obtain(Duration lease) {
        long ttl = ttlSeconds(lease);
        Session s = byTtl.get(ttl);
        if (s != null && !s.dead) {
            return s;
        }
        rejectIfTooShort(lease, ttl);
        synchronized (grantLocks.computeIfAbsent(ttl, t -> new Object())) {
            s = byTtl.get(ttl);
            if (s != null && !s.dead) {
                return s;
            }
            long sent = System.nanoTime();
            LeaseGrantResponse granted = calls.await(leases.grant(ttl), timeout, "grant a session lease of " + ttl + "s");
            if (granted.getTTL() > ttl) {
                clusterMinimumTtl = granted.getTTL();
                leases.revoke(granted.getID()); // nothing is attached to it; an unanswered revoke only leaves it to expire
                rejectIfTooShort(lease, ttl);
            }
            Session fresh = new Session(ttl, granted.getID(), sent);
            byTtl.put(ttl, fresh);
            log.debug("granted {}", fresh);
            return fresh;
        }
    }

    private void rejectIfTooShort(Duration lease, long ttl) {
        long minimum = clusterMinimumTtl;
        if (minimum > ttl) {
            throw new IllegalArgumentException("lease " + Durations.format(lease) + " is shorter than this etcd cluster keeps a lease ("
                    + minimum + "s: etcd's minimum TTL is 1.5 election timeouts), so a crashed holder's lock would outlive it; "
                    + "allowed: " + minimum + "s to " + Durations.format(Durations.MAX_LEASE));
        }
    }

    /**
     * Sends one keep-alive for {@code session} now; its reply completes exceptionally (lease not found) if the
     * session expired. A success also puts off the background keep-alive.
     */
    KeepAlive keepAlive(Session session) {
        KeepAlive sent;
        synchronized (session) {
            sent = new KeepAlive(System.nanoTime(), leases.keepAliveOnce(session.leaseId));
            session.latest = sent;
        }
        sent.reply().whenComplete((r, e) -> {
            if (e == null) {
                long next = sent.sentNanos() + session.interval();
                if (next - session.nextKeepAliveNanos > 0) {
                    session.nextKeepAliveNanos = next;
                }
            }
        });
        return sent;
    }

    /**
     * The last keep-alive of {@code session} if it was sent at most a twentieth of {@code lease} ago and has not
     * failed (it may still be on its way), otherwise a new one. An acquire waits for its reply; the hold's
     * deadline then counts from its send time, at most a twentieth of the lease before the acquire.
     */
    KeepAlive recentKeepAlive(Session session, Duration lease) {
        long maxAge = lease.toNanos() / 20;
        synchronized (session) {
            KeepAlive last = session.latest;
            if (System.nanoTime() - last.sentNanos() <= maxAge && !last.reply().isCompletedExceptionally()) {
                return last;
            }
        }
        return keepAlive(session);
    }

    /** Waits for the reply to {@code keepAlive}, sent for {@code what}; false if it found {@code session} expired. */
    boolean keptAlive(KeepAlive keepAlive, Session session, String what) {
        try {
            // A copy: a time-out here must not cancel a reply other attempts may be waiting for too.
            calls.await(keepAlive.reply().copy(), timeout, "keep the session lease alive to " + what);
            return true;
        } catch (RuntimeException e) {
            if (EtcdCalls.isLeaseNotFound(e.getCause())) {
                expired(session);
                return false;
            }
            throw e;
        }
    }

    /** Marks {@code session} expired: etcd deleted its keys, and the next acquire grants a new one. */
    void expired(Session session) {
        if (!session.dead) {
            session.dead = true;
            byTtl.remove(session.ttlSeconds, session);
            log.info("{} expired on the etcd cluster; its keys are gone", session);
        }
    }

    /** Background keep-alives: sends one for every session that is due and has none in flight. Never blocks. */
    void keepAliveDue() {
        long now = System.nanoTime();
        for (Session s : byTtl.values()) {
            if (s.dead || s.keepAliveInFlight || now - s.nextKeepAliveNanos < 0) {
                continue;
            }
            s.keepAliveInFlight = true;
            KeepAlive k;
            try {
                k = keepAlive(s);
            } catch (RuntimeException e) {
                s.keepAliveInFlight = false;
                continue;
            }
            k.reply().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((r, e) -> {
                s.keepAliveInFlight = false;
                if (e == null) {
                    return; // keepAlive put off the next one
                } else if (EtcdCalls.isLeaseNotFound(e)) {
                    expired(s);
                } else {
                    // Unreachable for now: try again soon; the holds' own renewals decide whether they survive.
                    s.nextKeepAliveNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
                    log.debug("background keep-alive of {} failed", s, e);
                }
            });
        }
    }

    /** Live sessions. */
    List<Session> live() {
        List<Session> out = new ArrayList<>();
        for (Session s : byTtl.values()) {
            if (!s.dead) {
                out.add(s);
            }
        }
        return out;
    }

    /** Revokes every session lease (deleting every key attached to them), waiting up to {@code wait} in all. */
    void revokeAll(Duration wait) {
        List<CompletableFuture<?>> revokes = new ArrayList<>();
        for (Session s : live()) {
            s.dead = true;
            try {
                revokes.add(leases.revoke(s.leaseId));
            } catch (RuntimeException e) {
                log.debug("revoking {} failed", s, e);
            }
        }
        byTtl.clear();
        try {
            CompletableFuture.allOf(revokes.toArray(CompletableFuture[]::new)).get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.debug("revoking the session leases did not finish; they expire by themselves", e);
        }
    }
}
