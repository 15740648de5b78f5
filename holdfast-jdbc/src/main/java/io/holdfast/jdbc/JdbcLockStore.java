package io.holdfast.jdbc;

import io.holdfast.HoldfastException;
import io.holdfast.LockInfo;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.StoreTraits;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Locks as rows of one table: the lock is held while its row names an owner and its {@code expires_at}
 * (by the database's clock) is in the future. See {@link Dialect} for the SQL.
 */
final class JdbcLockStore implements LockStore {
    private static final int ROLLBACK_RETRIES = 3;
    final JdbcUri uri;
    final Dialect dialect;
    final ConnectionSource connections;
    private final StoreTraits traits;
    private final PostgresReleaseListener listener;
    final SqlErrors errors;

    JdbcLockStore(JdbcUri uri) {
        this.uri = uri;
        this.errors = new SqlErrors(uri);
        SqlErrors.requireDriver(uri.kind);
        this.dialect = dialect(uri);
        this.traits = traits(uri.kind);
        try {
            connections = uri.kind.equals(JdbcUri.SQLITE) ? new SqliteConnection(uri) : new PooledConnections(uri);
        } catch (SQLException e) {
            if (uri.kind.equals(JdbcUri.SQLITE) && !errors.configuration(e)) {
                // A file SQLite cannot open or create (a bad directory, no permission, a full disk): unusable, as an unreachable server is.
                throw new StoreUnavailableException(backend(), address(), "cannot open: " + SqlErrors.rootMessage(e), e);
            }
            throw failure(uri.kind.equals(JdbcUri.SQLITE) ? "cannot open" : "cannot connect", e);
        } catch (RuntimeException e) {
            // HikariCP's PoolInitializationException when the server cannot be reached
            if (e.getCause() instanceof SQLException sql && errors.configuration(sql)) {
                throw errors.failure("cannot connect", sql);
            }
            Throwable cause = e.getCause() instanceof SQLException ? e.getCause() : e;
            throw new StoreUnavailableException(backend(), address(), "cannot connect: " + SqlErrors.rootMessage(cause), e);
        }
        createTable();
        listener = dialect instanceof PostgresDialect pg ? new PostgresReleaseListener(uri, pg.channel, errors::unavailable) : null;
    }

    /**
     * A store on connections borrowed from an application's {@code DataSource} (see {@link JdbcLocks}); closing it
     * gives back the listening connection and never closes the {@code DataSource}.
     *
     * @param listen whether PostgreSQL's connections unwrap to the driver's own, so that waits can LISTEN
     */
    JdbcLockStore(JdbcUri uri, javax.sql.DataSource dataSource, boolean listen) {
        this.uri = uri;
        this.errors = new SqlErrors(uri);
        this.dialect = dialect(uri);
        this.traits = traits(uri.kind);
        this.connections = new DataSourceConnections(dataSource, uri.kind);
        createTable();
        listener = listen && dialect instanceof PostgresDialect pg ? new PostgresReleaseListener(dataSource, pg.channel, errors::unavailable) : null;
    }

    private void createTable() {
        try {
            if (uri.createTable) {
                connections.with(c -> {
                    dialect.createTable(c);
                    return null;
                });
            }
        } catch (SQLException e) {
            connections.close();
            throw failure("cannot create the lock table " + uri.table, e);
        }
    }

    private static Dialect dialect(JdbcUri uri) {
        switch (uri.kind) {
            case JdbcUri.SQLITE:
                return new SqliteDialect(uri.table);
            case JdbcUri.POSTGRESQL:
                return new PostgresDialect(uri.table);
            default:
                return new MySqlDialect(uri.table);
        }
    }

    private static StoreTraits traits(String kind) {
        switch (kind) {
            case JdbcUri.SQLITE:
                return new StoreTraits("linearizable among the processes of one host: SQLite's single writer orders every change; "
                        + "leases run by the host's wall clock (a forward step of it frees holds early)", false, Duration.ofMillis(100), Duration.ofMillis(500));
            case JdbcUri.POSTGRESQL:
                return new StoreTraits("linearizable on one primary (leases by its wall clock: a forward step of it, or a failover to a replica "
                        + "whose clock is ahead, frees holds early); an asynchronous replica promoted after a failover may have lost recent acquisitions", true, Duration.ofMillis(100), Duration.ofSeconds(2));
            default:
                return new StoreTraits("linearizable on one primary (leases by its wall clock: a forward step of it, or a failover to a replica "
                        + "whose clock is ahead, frees holds early); an asynchronous replica promoted after a failover may have lost recent acquisitions", false, Duration.ofMillis(100), Duration.ofMillis(500));
        }
    }

    @Override
    public String backend() {
        return uri.backendName();
    }

    @Override
    public String address() {
        return uri.address;
    }

    @Override
    public StoreTraits traits() {
        return traits;
    }

    @Override
    public Attempt tryAcquire(String name, String ownerId, String holder, Duration lease) {
        return run("acquire '" + name + "'", c -> dialect.tryAcquire(c, name, ownerId, holder, lease, false));
    }

    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        return run("renew " + holds.size() + " lease(s)", c -> dialect.renew(c, holds, lease));
    }

    @Override
    public boolean release(String name, String ownerId) {
        return run("release '" + name + "'", c -> dialect.release(c, name, ownerId));
    }

    @Override
    public AutoCloseable watchReleases(String name, String ownerId, Runnable onRelease) {
        return listener == null ? () -> { } : listener.watch(name, onRelease);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return run("inspect '" + name + "'", c -> {
            try (PreparedStatement ps = c.prepareStatement(dialect.selectInfo() + " WHERE lock_name = ?")) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(info(rs)) : Optional.<LockInfo>empty();
                }
            }
        });
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        return run("list locks", c -> {
            try (PreparedStatement ps = c.prepareStatement(dialect.selectInfo()
                    + " WHERE SUBSTR(lock_name, 1, ?) = ? AND owner_id IS NOT NULL AND expires_at > " + dialect.now()
                    + " ORDER BY lock_name LIMIT ?")) {
                ps.setInt(1, prefix.length());
                ps.setString(2, prefix);
                ps.setInt(3, limit);
                List<LockInfo> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(info(rs));
                    }
                }
                return out;
            }
        });
    }

    @Override
    public boolean forceRelease(String name) {
        return run("force-release '" + name + "'", c -> dialect.forceRelease(c, name));
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
        connections.close();
    }

    private static LockInfo info(ResultSet rs) throws SQLException {
        String owner = rs.getString(2);
        long remaining = rs.getLong(5);
        boolean held = owner != null && !rs.wasNull() && remaining > 0;
        return new LockInfo(rs.getString(1), held, held ? rs.getString(3) : null, held ? owner : null, rs.getLong(4),
                held ? Duration.ofMillis(remaining) : null);
    }

    /**
     * Runs one unit of work, again (up to {@value #ROLLBACK_RETRIES} tries) if the database rolled it
     * back as a deadlock victim or serialization failure: every statement here is idempotent per owner
     * id, so a retry is safe.
     */
    <T> T run(String what, ConnectionSource.Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return connections.with(work);
            } catch (SQLException e) {
                if (attempt < ROLLBACK_RETRIES && rolledBack(e)) {
                    continue;
                }
                throw failure("cannot " + what, e);
            }
        }
    }

    private static boolean rolledBack(SQLException e) {
        String state = e.getSQLState();
        return e instanceof java.sql.SQLTransactionRollbackException || (state != null && state.startsWith("40"));
    }

    private HoldfastException failure(String what, SQLException e) {
        return errors.failure(what, e);
    }
}
