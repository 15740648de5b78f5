package io.holdfast.jdbc;

import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One database's SQL for the lock table. Every statement runs with auto-commit on, and each is atomic on
 * its own, so a failure leaves nothing half-done. Times are milliseconds since the epoch by the
 * database's clock ({@link #now()}); the client's clock is never compared with them.
 *
 * <p>The table has one row per lock name ever used. A free lock keeps its row (owner null) so that its
 * fencing counter keeps counting; the row named {@code ''} (never a valid lock name) is reserved as the
 * floor for counters of names whose rows are pruned.
 */
abstract class Dialect {
    final String table;

    Dialect(String table) {
        this.table = table;
    }

    /** The database's current time in ms since the epoch, as a SQL expression. */
    abstract String now();

    /** Statements that create the table if it does not exist. */
    abstract List<String> ddl();

    /** Runs {@link #ddl()} so that concurrent first users do not trip over each other. */
    void createTable(Connection c) throws SQLException {
        for (String sql : ddl()) {
            try (var st = c.createStatement()) {
                st.execute(sql);
            }
        }
    }

    /**
     * See {@link io.holdfast.spi.LockStore#tryAcquire}. With {@code takeOver} the row is taken whoever
     * has it (for callers that already exclude others, such as a native database lock): a new owner
     * then always gets the next token.
     */
    abstract Attempt tryAcquire(Connection c, String name, String owner, String holder, Duration lease, boolean takeOver)
            throws SQLException;

    /** See {@link io.holdfast.spi.LockStore#release}. */
    boolean release(Connection c, String name, String owner) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table
                + " SET owner_id = NULL, holder = NULL, expires_at = NULL WHERE lock_name = ? AND owner_id = ?")) {
            ps.setString(1, name);
            ps.setString(2, owner);
            return ps.executeUpdate() == 1;
        }
    }

    /** See {@link io.holdfast.spi.LockStore#forceRelease}. */
    boolean forceRelease(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table
                + " SET owner_id = NULL, holder = NULL, expires_at = NULL WHERE lock_name = ? AND owner_id IS NOT NULL AND expires_at > " + now())) {
            ps.setString(1, name);
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * Extends the leases of the given holds that are still owned; returns their owner ids. Base version:
     * one UPDATE, then one SELECT to learn which owners still hold, both by primary key and owner
     * ({@code (lock_name, owner_id) IN (...)}), so the table needs no index on owner_id and updates of
     * the lock row never touch an index.
     */
    Set<String> renew(Connection c, Collection<HoldRef> holds, Duration lease) throws SQLException {
        String pairs = pairs(holds.size());
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET expires_at = " + now() + " + ? WHERE (lock_name, owner_id) IN (" + pairs + ")")) {
            ps.setLong(1, lease.toMillis());
            bindPairs(ps, 2, holds);
            ps.executeUpdate();
        }
        Set<String> renewed = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT owner_id FROM " + table + " WHERE (lock_name, owner_id) IN (" + pairs + ")")) {
            bindPairs(ps, 1, holds);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    renewed.add(rs.getString(1));
                }
            }
        }
        return renewed;
    }

    /** {@code n} (name, owner) pairs for an IN list: row constructors unless a dialect needs another form. */
    String pairs(int n) {
        StringBuilder sb = new StringBuilder(n * 6);
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "(?,?)" : ",(?,?)");
        }
        return sb.toString();
    }

    private static void bindPairs(PreparedStatement ps, int from, Collection<HoldRef> holds) throws SQLException {
        int i = from;
        for (HoldRef h : holds) {
            ps.setString(i++, h.name());
            ps.setString(i++, h.ownerId());
        }
    }

    /** The holder's remaining lease in ms by the database clock, or null if the row is gone or free. */
    Duration holderRemaining(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT expires_at - " + now() + " FROM " + table + " WHERE lock_name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    long ms = rs.getLong(1);
                    return rs.wasNull() ? null : Duration.ofMillis(Math.max(0, ms));
                }
                return null;
            }
        }
    }

    /** Columns for inspection: name, owner, holder, token, remaining ms. */
    String selectInfo() {
        return "SELECT lock_name, owner_id, holder, fencing_token, expires_at - " + now() + " FROM " + table;
    }

    /** The next token for a brand-new row: one above the floor row's counter, if any. */
    String newRowToken() {
        return "COALESCE(MAX(fencing_token), 0) + 1";
    }

    static Attempt busy(Duration remaining) {
        return Attempt.busy(remaining);
    }
}
