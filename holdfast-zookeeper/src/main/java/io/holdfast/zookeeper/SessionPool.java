package io.holdfast.zookeeper;

import io.holdfast.Durations;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * One session per lease length in use, each with the lease as its timeout. Guarantee: a session is
 * handed out for a lease only while the servers grant it at least that timeout, checked when it is
 * opened and on every acquire; renewal checks it again ({@link ZkRenewal}), so a reconnect that
 * negotiated a shorter session is noticed at the next renewal.
 *
 * <p>At open it learns the longest session the ensemble grants ({@link #longestSessionMs}): a session that
 * asks for the core's longest lease is granted the server's {@code maxSessionTimeout} instead (ZooKeeper
 * clamps a requested timeout to {@code [minSessionTimeout, maxSessionTimeout]} and reports what it granted),
 * and is closed again at once. ZooKeeper exposes the limit in no other way that every server allows (the
 * {@code conf} four-letter word is off by default). It proves what the server that answered grants; another
 * server of the ensemble configured lower is still caught when a session is opened on it, by the check above.
 */
final class SessionPool {
    /** The core's default lease: the first session has it (or the longest session, if shorter), so a default client needs one. */
    static final long CORE_DEFAULT_LEASE_MS = 30_000;
    /** What limits a ZooKeeper lease, for the core's refusal. */
    static final String MAX_LEASE_LIMITED_BY = "the servers' maxSessionTimeout, 20 ticks unless set: a ZooKeeper hold lives no "
            + "longer than its session; raise it on the servers for longer leases";

    private final ZooKeeperUri uri;
    private final Duration minLease;
    private final LongAdder wakeUps;
    private final LongAdder watchEvents;
    private final Object lock = new Object();
    /** Sessions by requested timeout in ms, which is the lease of the holds they carry. */
    private final ConcurrentHashMap<Long, Session> sessions = new ConcurrentHashMap<>();
    /** Leases refused because the ensemble granted a shorter session: lease ms to granted ms. */
    private final ConcurrentHashMap<Long, Integer> refused = new ConcurrentHashMap<>();
    final Session first;
    /** The longest session timeout the ensemble granted when asked for the core's longest lease, in ms. */
    final long longestSessionMs;
    private volatile boolean closed;

    /**
     * Learns the longest session the ensemble grants, then opens the first session.
     *
     * @throws io.holdfast.StoreUnavailableException if no server answers within the connect timeout
     */
    SessionPool(ZooKeeperUri uri, Duration minLease, LongAdder wakeUps, LongAdder watchEvents) {
        this.uri = uri;
        this.minLease = minLease;
        this.wakeUps = wakeUps;
        this.watchEvents = watchEvents;
        this.longestSessionMs = longestSession(uri, wakeUps, watchEvents);
        long firstMs = Math.min(CORE_DEFAULT_LEASE_MS, longestSessionMs);
        this.first = Session.open(uri, firstMs, wakeUps, watchEvents);
        sessions.put(firstMs, first);
    }

    /** Asks for a session as long as the core's longest lease and returns what the server granted: its maxSessionTimeout. */
    private static long longestSession(ZooKeeperUri uri, LongAdder wakeUps, LongAdder watchEvents) {
        Session probe = Session.open(uri, Durations.MAX_LEASE.toMillis(), wakeUps, watchEvents);
        try {
            return probe.negotiatedTimeoutMs();
        } finally {
            probe.close();
        }
    }

    /**
     * The session for holds of {@code lease}, opened on first use.
     *
     * @throws IllegalArgumentException if the servers grant no session as long as the lease
     */
    Session forLease(Duration lease) {
        long ms = lease.toMillis();
        Integer granted = refused.get(ms);
        if (granted != null) {
            throw leaseTooLong(lease, granted);
        }
        Session s = sessions.get(ms);
        if (s == null) {
            synchronized (lock) {
                s = sessions.get(ms);
                if (s == null) {
                    if (closed) {
                        throw new IllegalStateException("the ZooKeeper lock store at " + uri.address + " is closed");
                    }
                    s = Session.open(uri, ms, wakeUps, watchEvents);
                    int negotiated = s.negotiatedTimeoutMs();
                    if (negotiated < ms) {
                        s.close();
                        refused.put(ms, negotiated);
                        throw leaseTooLong(lease, negotiated);
                    }
                    sessions.put(ms, s);
                }
            }
        }
        int negotiated = s.negotiatedTimeoutMs();
        if (negotiated > 0 && negotiated < ms) {
            throw leaseTooLong(lease, negotiated); // the ensemble's limit changed since the session was opened
        }
        return s;
    }

    /** The session of holds of {@code lease}, if one was opened; null otherwise. */
    Session existing(Duration lease) {
        return sessions.get(lease.toMillis());
    }

    Collection<Session> all() {
        return sessions.values();
    }

    /**
     * The refusal of a lease the core let through (it was within what the ensemble granted at open) but a server
     * grants no session for now: in the core's words, with this server's limit.
     */
    private IllegalArgumentException leaseTooLong(Duration lease, int grantedMs) {
        return new IllegalArgumentException("lease " + Durations.format(lease) + " is longer than the " + ZooKeeperLockStore.BACKEND
                + " store at " + uri.address + " can keep now; allowed: " + Durations.format(minLease) + " to "
                + Durations.format(Duration.ofMillis(grantedMs)) + " (set by " + MAX_LEASE_LIMITED_BY
                + "; a server granted a shorter session than when the store was opened)");
    }

    /** Ends every session, so the server deletes their remaining nodes at once. */
    void close() {
        synchronized (lock) {
            closed = true;
        }
        for (Session s : sessions.values()) {
            s.close();
        }
    }
}
