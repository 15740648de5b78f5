package io.holdfast.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;

/**
 * A database's own locks, bound to the session of a pinned connection: PostgreSQL advisory locks or MySQL/MariaDB
 * named locks ({@code mode=native}), or row locks of an open transaction ({@link RowLocks}, {@code mode=row}).
 */
abstract class SessionLocks {

    /** A native hold: the session (connection) that has it. */
    record Pin(String name, String owner, Connection connection, long session, long token) {
    }

    /** Takes the lock on this session without waiting; returns the session id, or -1 if another session has it. */
    abstract long tryLock(Connection c, String name) throws SQLException;

    /** Gives the lock back on the session that has it. */
    abstract void unlock(Connection c, String name) throws SQLException;

    /** Whether the session of {@code c} (a pinned connection) still holds the lock; run on that connection. */
    abstract boolean heldHere(Connection c, String name) throws SQLException;

    /** Ends whatever session holds {@code name}, which frees it; true if there was one. */
    abstract boolean terminateHolder(Connection c, String name) throws SQLException;

    /**
     * Whether a hold keeps a transaction open on its pinned connection: the lock table's row is then written on
     * another connection, since a write on the pinned one would only commit at release (and roll back with a
     * killed session, so its token could be issued again).
     */
    boolean inTransaction() {
        return false;
    }

    /** Readies the database when the store opens (row locks: their table and the server's NOWAIT); nothing by default. */
    void prepare(Connection c, boolean createTable) throws SQLException {
    }

    /** What a store of these locks promises, for its traits. */
    String guarantee() {
        return "linearizable on one primary while the holder's session lives; a dropped session frees the lock at once, before its holder can know";
    }

    /**
     * MySQL/MariaDB: runs {@code query}, whose one column is a session id (no row or NULL: none), and ends that session
     * with {@code KILL}; true if there was one.
     */
    static boolean killSessionRead(Connection c, PreparedStatement query) throws SQLException {
        long session;
        try (ResultSet rs = query.executeQuery()) {
            if (!rs.next()) {
                return false;
            }
            session = rs.getLong(1);
            if (rs.wasNull()) {
                return false;
            }
        }
        try (Statement st = c.createStatement()) {
            st.execute("KILL " + session); // a number read from the server, not user input
        }
        return true;
    }

    static SessionLocks forUri(JdbcUri uri) {
        if (uri.mode == JdbcUri.Mode.ROW) {
            return RowLocks.forKind(uri.kind, uri.table);
        }
        return uri.kind.equals(JdbcUri.POSTGRESQL) ? new Advisory(uri.table) : new Named(uri.table);
    }

    static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * PostgreSQL advisory locks on a 64-bit key: the first 8 bytes of SHA-256 of table and name (a
     * collision would make two names exclude each other; at 64 bits it takes billions of names to expect one).
     */
    static final class Advisory extends SessionLocks {
        private static final String KEY_OF_LOCK = "((classid::bigint << 32) | objid::bigint)";
        private final String table;

        Advisory(String table) {
            this.table = table;
        }

        long key(String name) {
            byte[] h = sha256("holdfast:" + table + ":" + name);
            long k = 0;
            for (int i = 0; i < 8; i++) {
                k = (k << 8) | (h[i] & 0xff);
            }
            return k;
        }

        @Override
        long tryLock(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_lock(?), pg_backend_pid()")) {
                ps.setLong(1, key(name));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getBoolean(1) ? rs.getLong(2) : -1;
                }
            }
        }

        @Override
        void unlock(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock(?)")) {
                ps.setLong(1, key(name));
                ps.execute();
            }
        }

        @Override
        boolean heldHere(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' "
                    + "AND objsubid = 1 AND granted AND pid = pg_backend_pid() AND " + KEY_OF_LOCK + " = ?)")) {
                ps.setLong(1, key(name));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getBoolean(1);
                }
            }
        }

        @Override
        boolean terminateHolder(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(pid) FROM pg_locks "
                    + "WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND " + KEY_OF_LOCK + " = ?")) {
                ps.setLong(1, key(name));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getBoolean(1);
                }
            }
        }
    }

    /**
     * MySQL/MariaDB named locks (GET_LOCK). Names are at most 64 characters there, so longer lock names
     * are replaced by a SHA-256 prefix.
     */
    static final class Named extends SessionLocks {
        private final String table;

        Named(String table) {
            this.table = table;
        }

        String lockName(String name) {
            String plain = "holdfast/" + table + "/" + name;
            return plain.length() <= 64 ? plain : "holdfast#" + HexFormat.of().formatHex(sha256(plain)).substring(0, 55);
        }

        @Override
        long tryLock(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("SELECT GET_LOCK(?, 0), CONNECTION_ID()")) {
                ps.setString(1, lockName(name));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1) == 1 ? rs.getLong(2) : -1;
                }
            }
        }

        @Override
        void unlock(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("SELECT RELEASE_LOCK(?)")) {
                ps.setString(1, lockName(name));
                ps.execute();
            }
        }

        @Override
        boolean heldHere(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("SELECT IS_USED_LOCK(?) = CONNECTION_ID()")) {
                ps.setString(1, lockName(name));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getBoolean(1); // NULL (free) reads as false
                }
            }
        }

        @Override
        boolean terminateHolder(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("SELECT IS_USED_LOCK(?)")) {
                ps.setString(1, lockName(name));
                return killSessionRead(c, ps);
            }
        }
    }
}
