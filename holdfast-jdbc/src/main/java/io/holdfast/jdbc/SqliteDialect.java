package io.holdfast.jdbc;

import io.holdfast.spi.Attempt;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * SQLite: one upsert takes the lock (SQLite's single writer serialises it against every other process
 * on the host), and expiry runs by the host's clock, shared by every process that can open the file.
 */
final class SqliteDialect extends Dialect {

    SqliteDialect(String table) {
        super(table);
    }

    @Override
    String now() {
        return "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)";
    }

    @Override
    List<String> ddl() {
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + table + " (lock_name TEXT NOT NULL PRIMARY KEY, owner_id TEXT, holder TEXT, "
                        + "fencing_token INTEGER NOT NULL, expires_at INTEGER, acquired_at INTEGER)");
    }

    /** SQLite compares row values against a VALUES list. */
    @Override
    String pairs(int n) {
        return "VALUES " + super.pairs(n);
    }

    /**
     * Release commits without waiting for the disk ({@code synchronous=NORMAL} for this one statement):
     * a release lost to a power cut leaves the lock held until its lease ends, which is safe, and the
     * next acquire's durable commit makes it durable anyway. Acquires and renewals stay synchronous.
     */
    @Override
    boolean release(Connection c, String name, String owner) throws SQLException {
        try (var st = c.createStatement()) {
            st.execute("PRAGMA synchronous = NORMAL");
            try {
                return super.release(c, name, owner);
            } finally {
                st.execute("PRAGMA synchronous = FULL");
            }
        }
    }

    @Override
    Attempt tryAcquire(Connection c, String name, String owner, String holder, Duration lease, boolean takeOver)
            throws SQLException {
        String now = now();
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + table + " AS l (lock_name, owner_id, holder, fencing_token, expires_at, acquired_at) "
                        + "SELECT ?, ?, ?, " + newRowToken() + ", " + now + " + ?, " + now + " FROM " + table + " WHERE lock_name = '' "
                        + "ON CONFLICT (lock_name) DO UPDATE SET "
                        + "fencing_token = CASE WHEN l.owner_id = excluded.owner_id THEN l.fencing_token ELSE l.fencing_token + 1 END, "
                        + "acquired_at = CASE WHEN l.owner_id = excluded.owner_id THEN l.acquired_at ELSE excluded.acquired_at END, "
                        + "owner_id = excluded.owner_id, holder = excluded.holder, expires_at = excluded.expires_at "
                        + (takeOver ? "" : "WHERE l.owner_id IS NULL OR l.expires_at <= " + now + " OR l.owner_id = excluded.owner_id ")
                        + "RETURNING fencing_token")) {
            ps.setString(1, name);
            ps.setString(2, owner);
            ps.setString(3, holder);
            ps.setLong(4, lease.toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return Attempt.acquired(rs.getLong(1));
                }
            }
        }
        return busy(holderRemaining(c, name));
    }
}
