package io.holdfast.jdbc;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * LISTENs on the table's channel on one dedicated connection, started with the first watch, and runs
 * the watchers of each released name. After a reconnect it wakes every watcher, since notifications
 * sent meanwhile are lost; their waits fall back to polling until then. A link that dies silently (no
 * reset: NAT expiry, a moved address) is noticed by a {@code SELECT 1} after 5 s without notifications,
 * which must answer within 2 s, and by TCP keep-alive; then every watcher is woken and it reconnects.
 */
final class PostgresReleaseListener implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PostgresReleaseListener.class);
    private static final int POLL_MS = 500;
    /** After this many empty polls (5 s of silence) the connection proves it is alive with a query. */
    static final int CHECK_AFTER_EMPTY_POLLS = 10;
    /** How long that query may take before the connection counts as dead. */
    static final int CHECK_TIMEOUT_MS = 2_000;

    /** Opens the listening connection. */
    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    private final Opener opener;
    /** True when the connection is borrowed from an application's pool: it is given back with UNLISTEN. */
    private final boolean borrowed;
    private final String channel;
    private final Predicate<SQLException> unavailable;
    private final Map<String, List<Runnable>> watchers = new ConcurrentHashMap<>();
    private Thread thread;
    private volatile boolean closed;

    PostgresReleaseListener(JdbcUri uri, String channel, Predicate<SQLException> unavailable) {
        this.opener = () -> DriverManager.getConnection(uri.jdbcUrl, properties(uri));
        this.borrowed = false;
        this.channel = channel;
        this.unavailable = unavailable;
    }

    /**
     * Listens on a connection borrowed from an application's {@code DataSource}, kept while the store is open
     * and given back (after {@code UNLISTEN *} and with its network time-out restored) when it closes or fails.
     */
    PostgresReleaseListener(javax.sql.DataSource dataSource, String channel, Predicate<SQLException> unavailable) {
        this.opener = dataSource::getConnection;
        this.borrowed = true;
        this.channel = channel;
        this.unavailable = unavailable;
    }

    AutoCloseable watch(String name, Runnable onRelease) {
        watchers.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>()).add(onRelease);
        startOnce();
        return () -> watchers.computeIfPresent(name, (n, list) -> {
            list.remove(onRelease);
            return list.isEmpty() ? null : list;
        });
    }

    private synchronized void startOnce() {
        if (thread == null && !closed) {
            thread = new Thread(this::loop, "holdfast-pg-listen");
            thread.setDaemon(true);
            thread.start();
        }
    }

    private void loop() {
        long backoffMs = 100;
        boolean reconnecting = false;
        while (!closed) {
            try (Connection c = opener.open(); AutoCloseable giveBack = giveBack(c)) {
                c.setNetworkTimeout(Runnable::run, CHECK_TIMEOUT_MS);
                try (Statement st = c.createStatement()) {
                    st.execute("LISTEN " + channel);
                }
                if (reconnecting) {
                    wakeAll(); // releases during the outage were not heard
                }
                backoffMs = 100;
                PGConnection pg = c.unwrap(PGConnection.class);
                int empty = 0;
                while (!closed) {
                    PGNotification[] notes = pg.getNotifications(POLL_MS);
                    if (notes != null && notes.length > 0) {
                        empty = 0;
                        for (PGNotification n : notes) {
                            wake(n.getParameter());
                        }
                    } else if (++empty >= CHECK_AFTER_EMPTY_POLLS) {
                        empty = 0;
                        checkAlive(c); // a half-open link never fails a wait for notifications
                    }
                }
            } catch (Exception e) {
                if (closed) {
                    return;
                }
                reconnecting = true;
                wakeAll(); // they poll now rather than wait for a notification that may never come
                if (e instanceof SQLException sql && unavailable.test(sql)) {
                    log.debug("release listener lost its connection; waiters poll until it is back", e);
                } else {
                    log.warn("release listener failed; waiters poll until it is back", e);
                }
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException ie) {
                    return;
                }
                backoffMs = Math.min(2000, backoffMs * 2);
            }
        }
    }

    /** Throws if the server does not answer {@code SELECT 1} within {@link #CHECK_TIMEOUT_MS}. */
    private static void checkAlive(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("SELECT 1");
        }
    }

    /** For a borrowed connection: stops listening and restores its network time-out before the pool gets it back. */
    private AutoCloseable giveBack(Connection c) throws SQLException {
        if (!borrowed) {
            return () -> { };
        }
        int networkTimeout = c.getNetworkTimeout();
        return () -> {
            try (Statement st = c.createStatement()) {
                st.execute("UNLISTEN *");
                c.setNetworkTimeout(Runnable::run, networkTimeout);
            } catch (SQLException e) {
                log.debug("could not reset the borrowed listening connection; the pool gets it back as it is", e);
            }
        };
    }

    /** TCP keep-alive (the OS probes an idle link) and the pool's connect time-out. */
    private static Properties properties(JdbcUri uri) {
        Properties p = new Properties();
        p.setProperty("tcpKeepAlive", "true");
        p.setProperty("connectTimeout", Long.toString(Math.max(1, uri.connectTimeout.toSeconds())));
        p.setProperty("ApplicationName", "holdfast-listen");
        return p;
    }

    private void wake(String name) {
        List<Runnable> list = watchers.get(name);
        if (list != null) {
            list.forEach(Runnable::run);
        }
    }

    private void wakeAll() {
        watchers.values().forEach(list -> list.forEach(Runnable::run));
    }

    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            t = thread;
        }
        if (t != null) {
            try {
                t.join(POLL_MS * 2L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
