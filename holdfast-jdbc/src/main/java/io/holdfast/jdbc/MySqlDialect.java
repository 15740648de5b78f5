package io.holdfast.jdbc;

import io.holdfast.spi.Attempt;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * MySQL and MariaDB: a conditional UPDATE takes a lock whose row exists (one round trip; the token
 * comes back in the reply through {@code LAST_INSERT_ID(expr)}). When it changes nothing, one non-locking
 * read tells a refusal (2 statements in all) from a first use, which an INSERT IGNORE then creates (3). Sessions run in UTC so that the clock expression has no daylight-saving jumps.
 * Assignments in a MySQL UPDATE apply left to right, so the token and acquired_at are computed from the
 * old owner before owner_id changes.
 */
final class MySqlDialect extends Dialect {

    MySqlDialect(String table) {
        super(table);
    }

    @Override
    String now() {
        return "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)";
    }

    @Override
    List<String> ddl() {
        return List.of("CREATE TABLE IF NOT EXISTS " + table + " ("
                + "lock_name VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY, "
                + "owner_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin, holder VARCHAR(255), "
                + "fencing_token BIGINT NOT NULL, expires_at BIGINT, acquired_at BIGINT) ENGINE=InnoDB");
    }

    @Override
    Attempt tryAcquire(Connection c, String name, String owner, String holder, Duration lease, boolean takeOver)
            throws SQLException {
        String now = now();
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET "
                + "fencing_token = LAST_INSERT_ID(IF(owner_id <=> ?, fencing_token, fencing_token + 1)), "
                + "acquired_at = IF(owner_id <=> ?, acquired_at, " + now + "), "
                + "owner_id = ?, holder = ?, expires_at = " + now + " + ? "
                + "WHERE lock_name = ?" + (takeOver ? "" : " AND (owner_id IS NULL OR expires_at <= " + now + " OR owner_id = ?)"),
                Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, owner);
            ps.setString(2, owner);
            ps.setString(3, owner);
            ps.setString(4, holder);
            ps.setLong(5, lease.toMillis());
            ps.setString(6, name);
            if (!takeOver) {
                ps.setString(7, owner);
            }
            if (ps.executeUpdate() == 1) {
                return Attempt.acquired(lastInsertId(c, ps));
            }
        }
        // Refused, or the name's first use. One non-locking read tells which, with the holder's remaining
        // lease and the floor (an INSERT ... SELECT from the same table would take shared gap locks and
        // deadlock against a concurrent first use). A refused attempt, every poll of a waiter, ends here.
        long floor;
        try (PreparedStatement ps = c.prepareStatement("SELECT (SELECT COUNT(*) FROM " + table + " WHERE lock_name = ?), "
                + "(SELECT expires_at - " + now + " FROM " + table + " WHERE lock_name = ?), "
                + "(SELECT fencing_token FROM " + table + " WHERE lock_name = '')")) {
            ps.setString(1, name);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getLong(1) > 0) {
                    long remaining = rs.getLong(2);
                    return busy(rs.wasNull() ? null : Duration.ofMillis(Math.max(0, remaining)));
                }
                floor = rs.getLong(3); // 0 when there is no floor row
            }
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT IGNORE INTO " + table
                + " (lock_name, owner_id, holder, fencing_token, expires_at, acquired_at) VALUES (?, ?, ?, ?, " + now + " + ?, " + now + ")")) {
            ps.setString(1, name);
            ps.setString(2, owner);
            ps.setString(3, holder);
            ps.setLong(4, floor + 1);
            ps.setLong(5, lease.toMillis());
            if (ps.executeUpdate() == 1) {
                return Attempt.acquired(floor + 1);
            }
        }
        return busy(holderRemaining(c, name)); // a concurrent first use won
    }

    /** The value LAST_INSERT_ID(expr) set: from the reply if the driver passes it on, else asked for. */
    private static long lastInsertId(Connection c, PreparedStatement ps) throws SQLException {
        try (ResultSet keys = ps.getGeneratedKeys()) {
            if (keys.next()) {
                long id = keys.getLong(1);
                if (id > 0) {
                    return id;
                }
            }
        }
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT LAST_INSERT_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
