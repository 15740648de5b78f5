package io.holdfast.jdbc;

import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * PostgreSQL: acquire is one statement (an upsert that also reports the holder's remaining lease when
 * it fails), release and force-release notify waiters in the same round trip, and renewal of a batch is
 * one statement by primary key.
 *
 * <p>Tokens of new owners come from the table's sequence, not from the row or the floor row: the upsert's
 * new-row values are computed before it waits on a conflicting row, so a token read from the table could
 * be stale by the time the row is written (a concurrent prune made one go from 5 to 1). A sequence value
 * is greater than every value handed out before it was asked for, committed or not. A new owner of an
 * existing row takes {@code nextval} after the row is locked, and never less than the row's token + 1.
 */
final class PostgresDialect extends Dialect {
    final String channel;
    /** Issues every new owner's token; non-transactional, so it never goes back, whatever rows are deleted. */
    final String sequence;

    PostgresDialect(String table) {
        super(table);
        this.channel = "holdfast_" + table.toLowerCase(java.util.Locale.ROOT);
        this.sequence = table + "_token_seq";
    }

    @Override
    String now() {
        return "(EXTRACT(EPOCH FROM now()) * 1000)::bigint";
    }

    @Override
    List<String> ddl() {
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + table + " (lock_name VARCHAR(255) NOT NULL PRIMARY KEY, owner_id VARCHAR(64), "
                        + "holder VARCHAR(255), fencing_token BIGINT NOT NULL, expires_at BIGINT, acquired_at BIGINT)",
                "CREATE SEQUENCE IF NOT EXISTS " + sequence + " OWNED BY " + table + ".fencing_token");
    }

    /**
     * Creates the table and its token sequence, serialising concurrent creators on a transaction-level
     * advisory lock (CREATE ... IF NOT EXISTS races in PostgreSQL). A table from before the sequence gets
     * one that starts above every token in it, the floor row's included; the table is share-locked
     * meanwhile, so no acquire of an older client slips a larger token past the count.
     */
    @Override
    void createTable(Connection c) throws SQLException {
        underDdlLock(c, table, () -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NULL")) {
                ps.setString(1, sequence);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        createWithSequence(c);
                    }
                }
            }
        });
    }

    /** DDL of the lock table {@code table} (or a table beside it) run in one transaction. */
    interface Ddl {
        void run() throws SQLException;
    }

    /**
     * Runs {@code ddl} in one transaction that first takes a transaction-level advisory lock for {@code table}'s DDL,
     * so concurrent creators wait for each other (CREATE ... IF NOT EXISTS races in PostgreSQL).
     */
    static void underDdlLock(Connection c, String table, Ddl ddl) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
                ps.setString(1, "holdfast-ddl:" + table);
                ps.execute();
            }
            ddl.run();
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    private void createWithSequence(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(ddl().get(0));
            st.execute("LOCK TABLE " + table + " IN SHARE MODE");
            st.execute(ddl().get(1));
            try (ResultSet rs = st.executeQuery("SELECT setval('" + sequence + "', MAX(fencing_token)) FROM " + table
                    + " HAVING MAX(fencing_token) > 0")) {
                rs.next();
            }
        }
    }

    @Override
    Attempt tryAcquire(Connection c, String name, String owner, String holder, Duration lease, boolean takeOver)
            throws SQLException {
        String now = now();
        try (PreparedStatement ps = c.prepareStatement(
                "WITH acquired AS (INSERT INTO " + table + " AS l (lock_name, owner_id, holder, fencing_token, expires_at, acquired_at) "
                        + "VALUES (?, ?, ?, nextval('" + sequence + "'), " + now + " + ?, " + now + ") "
                        + "ON CONFLICT (lock_name) DO UPDATE SET "
                        + "fencing_token = CASE WHEN l.owner_id = EXCLUDED.owner_id THEN l.fencing_token "
                        + "ELSE GREATEST(nextval('" + sequence + "'), l.fencing_token + 1) END, "
                        + "acquired_at = CASE WHEN l.owner_id = EXCLUDED.owner_id THEN l.acquired_at ELSE EXCLUDED.acquired_at END, "
                        + "owner_id = EXCLUDED.owner_id, holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at "
                        + (takeOver ? "" : "WHERE l.owner_id IS NULL OR l.expires_at <= " + now + " OR l.owner_id = EXCLUDED.owner_id ")
                        + "RETURNING fencing_token) "
                        + "SELECT fencing_token, NULL::bigint FROM acquired "
                        + "UNION ALL SELECT NULL, expires_at - " + now + " FROM " + table
                        + " WHERE lock_name = ? AND NOT EXISTS (SELECT 1 FROM acquired)")) {
            ps.setString(1, name);
            ps.setString(2, owner);
            ps.setString(3, holder);
            ps.setLong(4, lease.toMillis());
            ps.setString(5, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return busy(null); // a concurrent first insert won; its row was not in our snapshot
                }
                long token = rs.getLong(1);
                if (!rs.wasNull()) {
                    return Attempt.acquired(token);
                }
                long remaining = rs.getLong(2);
                return busy(rs.wasNull() ? null : Duration.ofMillis(Math.max(0, remaining)));
            }
        }
    }

    @Override
    boolean release(Connection c, String name, String owner) throws SQLException {
        return notifying(c, "UPDATE " + table + " SET owner_id = NULL, holder = NULL, expires_at = NULL "
                + "WHERE lock_name = ? AND owner_id = ? RETURNING lock_name", name, owner);
    }

    @Override
    boolean forceRelease(Connection c, String name) throws SQLException {
        return notifying(c, "UPDATE " + table + " SET owner_id = NULL, holder = NULL, expires_at = NULL "
                + "WHERE lock_name = ? AND owner_id IS NOT NULL AND expires_at > " + now() + " RETURNING lock_name", name);
    }

    /**
     * Runs an UPDATE ... RETURNING lock_name and notifies the channel for each row it changed, in one
     * statement whose commit does not wait for the disk ({@code synchronous_commit} off for this
     * transaction only). That is safe for releases: one lost to a crash leaves the lock held until its
     * lease ends, and the next acquire's synchronous commit flushes the log past it anyway. Acquires and
     * renewals commit synchronously: losing one could reissue a token or free a lock its holder trusts.
     */
    private boolean notifying(Connection c, String update, String... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true)), "
                + "changed AS (" + update + ") SELECT pg_notify(?, lock_name) FROM changed, relaxed")) {
            int i = 1;
            for (String p : params) {
                ps.setString(i++, p);
            }
            ps.setString(i, channel);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    @Override
    Set<String> renew(Connection c, Collection<HoldRef> holds, Duration lease) throws SQLException {
        Array names = c.createArrayOf("varchar", holds.stream().map(HoldRef::name).toArray(String[]::new));
        Array owners = c.createArrayOf("varchar", holds.stream().map(HoldRef::ownerId).toArray(String[]::new));
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " l SET expires_at = " + now()
                + " + ? FROM unnest(?::varchar[], ?::varchar[]) AS r(lock_name, owner_id) "
                + "WHERE l.lock_name = r.lock_name AND l.owner_id = r.owner_id RETURNING l.owner_id")) {
            ps.setLong(1, lease.toMillis());
            ps.setArray(2, names);
            ps.setArray(3, owners);
            Set<String> renewed = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    renewed.add(rs.getString(1));
                }
            }
            return renewed;
        } finally {
            names.free();
            owners.free();
        }
    }
}
