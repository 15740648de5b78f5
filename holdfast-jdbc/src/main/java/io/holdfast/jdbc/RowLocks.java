package io.holdfast.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Row locks of open transactions ({@code mode=row}): a hold is a transaction on its pinned connection that has taken
 * {@code SELECT ... FOR UPDATE NOWAIT} on the name's row of the table {@code <table>_row_locks} (one row per name,
 * created on first use by an insert that ignores an existing row, in its own short transaction). Release rolls the
 * transaction back; a session that ends rolls it back too, which frees the row at once.
 *
 * <p>The rows carry no token: a counter bumped inside the holding transaction would roll back with a killed session
 * and be issued again, so tokens come from the lock table, written on another connection and committed before the
 * acquire returns (see {@link SessionLocks#inTransaction()}).
 */
abstract class RowLocks extends SessionLocks {
    /** The table of lockable rows, {@code <table>_row_locks}. */
    final String rows;

    RowLocks(String table) {
        this.rows = table + "_row_locks";
    }

    static RowLocks forKind(String kind, String table) {
        return kind.equals(JdbcUri.POSTGRESQL) ? new Postgres(table) : new MySql(table);
    }

    /** The statement that creates {@link #rows} if it does not exist. */
    abstract String ddl();

    /**
     * Inserts the name's row unless it exists, on a connection in auto-commit, without waiting long for a holder of
     * the row; returns false if the row turned out to exist and be locked.
     */
    abstract boolean createRow(Connection c, String name) throws SQLException;

    /** Whether {@code e} is the refusal of a NOWAIT lock that another transaction holds. */
    abstract boolean lockNotAvailable(SQLException e);

    /**
     * After {@link #lockRow} took the row: whatever else the holding transaction records (MySQL: its session, for
     * {@link #terminateHolder}). Nothing by default.
     */
    void afterLock(Connection c, String name) throws SQLException {
    }

    @Override
    boolean inTransaction() {
        return true;
    }

    @Override
    String guarantee() {
        return "linearizable on one primary while the holder's transaction lives; a dropped session rolls it back and frees the lock "
                + "at once, before its holder can know";
    }

    /** Creates the table (if asked) and checks that the server takes {@code FOR UPDATE NOWAIT} (MySQL 8, MariaDB 10.3 or later). */
    @Override
    void prepare(Connection c, boolean createTable) throws SQLException {
        if (createTable) {
            createTable(c);
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT lock_name FROM " + rows + " WHERE lock_name = '' FOR UPDATE NOWAIT")) {
            ps.executeQuery().close();
        }
    }

    void createTable(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(ddl());
        }
    }

    /**
     * Opens the holding transaction and locks the name's row without waiting, creating the row first if it is
     * missing; on success the connection stays in that transaction. Returns the session id, or -1 (the connection
     * back in auto-commit) if another transaction has the row.
     */
    @Override
    long tryLock(Connection c, String name) throws SQLException {
        for (int attempt = 0; attempt < 2; attempt++) {
            c.setAutoCommit(false);
            long session;
            try {
                session = lockRow(c, name);
                if (session >= 0) {
                    afterLock(c, name);
                    return session;
                }
            } catch (SQLException e) {
                endTransaction(c);
                if (lockNotAvailable(e)) {
                    return -1;
                }
                throw e;
            }
            endTransaction(c);
            if (!createRow(c, name)) { // first use of the name: lock again, now that the row exists
                return -1;
            }
        }
        throw new SQLException("the row of '" + name + "' in " + rows + " was deleted again each time it was created");
    }

    /** Locks the name's row in the open transaction, without waiting; returns the session id, or -1 if there is no row. */
    private long lockRow(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + sessionId() + " FROM " + rows + " WHERE lock_name = ? FOR UPDATE NOWAIT")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    /** The session's id, as a SQL expression. */
    abstract String sessionId();

    /** Release: rolls the holding transaction back, which frees the row, and puts the connection back in auto-commit. */
    @Override
    void unlock(Connection c, String name) throws SQLException {
        endTransaction(c);
    }

    private static void endTransaction(Connection c) throws SQLException {
        c.rollback();
        c.setAutoCommit(true);
    }

    /**
     * Locks the row again in the holding transaction: immediate for the transaction that has it. A session the server
     * ended, or a transaction it aborted, fails the statement.
     */
    @Override
    boolean heldHere(Connection c, String name) throws SQLException {
        return !c.getAutoCommit() && lockRow(c, name) >= 0;
    }

    /** PostgreSQL: the holder's transaction id is the locked row's {@code xmax}; its backend holds that id's lock. */
    static final class Postgres extends RowLocks {
        private final String table;

        Postgres(String table) {
            super(table);
            this.table = table;
        }

        @Override
        String ddl() {
            return "CREATE TABLE IF NOT EXISTS " + rows + " (lock_name VARCHAR(255) NOT NULL PRIMARY KEY)";
        }

        @Override
        void createTable(Connection c) throws SQLException {
            PostgresDialect.underDdlLock(c, table, () -> super.createTable(c));
        }

        /** An existing row, locked or not, is no conflict for DO NOTHING: it waits only for a concurrent insert's commit. */
        @Override
        boolean createRow(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + rows + " (lock_name) VALUES (?) ON CONFLICT DO NOTHING")) {
                ps.setString(1, name);
                ps.executeUpdate();
            }
            return true;
        }

        @Override
        String sessionId() {
            return "pg_backend_pid()";
        }

        @Override
        boolean lockNotAvailable(SQLException e) {
            return "55P03".equals(e.getSQLState());
        }

        @Override
        boolean terminateHolder(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(l.pid) FROM " + rows + " r JOIN pg_locks l "
                    + "ON l.locktype = 'transactionid' AND l.transactionid = r.xmax AND l.granted AND l.mode = 'ExclusiveLock' "
                    + "WHERE r.lock_name = ?")) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getBoolean(1);
                }
            }
        }
    }

    /**
     * MySQL 8 and MariaDB 10.3 or later. MariaDB lists no row lock nobody waits for, so the holding transaction writes
     * its session id into the row it locked (rolled back at release, so the committed value stays NULL), and
     * force-release reads it uncommitted.
     */
    static final class MySql extends RowLocks {
        /** ER_LOCK_WAIT_TIMEOUT (MariaDB's answer to NOWAIT) and ER_LOCK_NOWAIT (MySQL 8's). */
        private static final int LOCK_WAIT_TIMEOUT = 1205;
        private static final int LOCK_NOWAIT = 3572;

        MySql(String table) {
            super(table);
        }

        @Override
        String ddl() {
            return "CREATE TABLE IF NOT EXISTS " + rows + " (lock_name VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL "
                    + "PRIMARY KEY, session_id BIGINT) ENGINE=InnoDB";
        }

        /**
         * INSERT IGNORE share-locks an existing row to see the duplicate, so it would wait for a transaction holding it
         * (until {@code innodb_lock_wait_timeout}, 50 s by default): another first user of the name may have created and
         * locked the row since this one found none. That wait is cut to one second (the least MySQL allows) for this
         * statement, and a time-out means the row is held.
         */
        @Override
        boolean createRow(Connection c, String name) throws SQLException {
            long waitWas;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @@SESSION.innodb_lock_wait_timeout")) {
                rs.next();
                waitWas = rs.getLong(1);
            }
            try (Statement st = c.createStatement()) {
                st.execute("SET SESSION innodb_lock_wait_timeout = 1");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT IGNORE INTO " + rows + " (lock_name) VALUES (?)")) {
                ps.setString(1, name);
                ps.executeUpdate();
                return true;
            } catch (SQLException e) {
                if (lockNotAvailable(e)) {
                    return false;
                }
                throw e;
            } finally {
                try (Statement st = c.createStatement()) {
                    st.execute("SET SESSION innodb_lock_wait_timeout = " + waitWas); // a number read from the server
                }
            }
        }

        @Override
        String sessionId() {
            return "CONNECTION_ID()";
        }

        @Override
        boolean lockNotAvailable(SQLException e) {
            return e.getErrorCode() == LOCK_WAIT_TIMEOUT || e.getErrorCode() == LOCK_NOWAIT;
        }

        @Override
        void afterLock(Connection c, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + rows + " SET session_id = CONNECTION_ID() WHERE lock_name = ?")) {
                ps.setString(1, name);
                ps.executeUpdate();
            }
        }

        @Override
        boolean terminateHolder(Connection c, String name) throws SQLException {
            try (Statement st = c.createStatement()) {
                st.execute("SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED"); // the next transaction only: the SELECT below
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT session_id FROM " + rows + " WHERE lock_name = ?")) {
                ps.setString(1, name);
                return killSessionRead(c, ps);
            }
        }
    }
}
