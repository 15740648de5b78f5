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
 */
final class SessionPool {
    /** The first session's timeout: the core's default lease, so a default client needs one session. */
    static final long FIRST_SESSION_MS = 30_000;

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
    private volatile boolean closed;

    /** Opens the first session. */
    SessionPool(ZooKeeperUri uri, Duration minLease, LongAdder wakeUps, LongAdder watchEvents) {
        this.uri = uri;
        this.minLease = minLease;
        this.wakeUps = wakeUps;
        this.watchEvents = watchEvents;
        this.first = Session.open(uri, FIRST_SESSION_MS, wakeUps, watchEvents);
        sessions.put(FIRST_SESSION_MS, first);
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

    private IllegalArgumentException leaseTooLong(Duration lease, int grantedMs) {
        return new IllegalArgumentException("lease " + Durations.format(lease) + " is longer than the ZooKeeper session the ensemble at "
                + uri.address + " grants (" + Durations.format(Duration.ofMillis(grantedMs)) + "; servers cap sessions at their "
                + "maxSessionTimeout, 20 ticks unless set). A ZooKeeper hold lives only as long as its session, so allowed: a lease of "
                + Durations.format(minLease) + " to " + Durations.format(Duration.ofMillis(grantedMs))
                + ", or raise maxSessionTimeout on the servers");
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
