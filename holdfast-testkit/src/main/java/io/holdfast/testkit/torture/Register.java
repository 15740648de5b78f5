package io.holdfast.testkit.torture;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The shared registers the clients increment under the lock: one row per run in any SQL database
 * (SQLite, PostgreSQL, MariaDB/MySQL), holding three counters that differ only in how a write is guarded.
 *
 * <pre>
 * holdfast_torture_register(run_id PRIMARY KEY,
 *     fenced_value, fenced_fence,   -- FENCED: the holder claims the row with its token before reading
 *                                   --   (SET fence = t WHERE fence &lt; t) and writes only while its claim
 *                                   --   stands (SET value = v WHERE fence = t)
 *     wf_value, wf_fence,           -- WRITE_FENCED: the write alone is checked
 *                                   --   (SET value = v, fence = t WHERE fence &lt; t)
 *     plain_value)                  -- UNGUARDED: SET value = v
 * </pre>
 *
 * <p>Why two fenced counters: checking the token at the write only still loses an increment when a stale
 * holder's write lands between a newer holder's read and its write (both read the same value; the stale
 * write is accepted because no newer token has written yet). Claiming before the read closes that gap.
 */
final class Register implements AutoCloseable {
    static final String TABLE = "holdfast_torture_register";

    /** The three counters, in the order {@link #read()} returns them. */
    enum Kind {
        FENCED("fenced", "token claimed before the read, write only while the claim stands"),
        WRITE_FENCED("write-fenced", "UPDATE ... SET value=?, fence=? WHERE fence < token (write checked, read not)"),
        UNGUARDED("unguarded", "UPDATE ... SET value=? (no fencing)");

        final String label;
        final String description;

        Kind(String label, String description) {
            this.label = label;
            this.description = description;
        }

        String readOp() {
            return "read:" + label;
        }

        String writeOp() {
            return "write:" + label;
        }

        static final List<Kind> ALL = List.of(values());
    }

    private final Connection connection;
    private final String runId;

    Register(String jdbcUrl, String runId) throws SQLException {
        this.connection = DriverManager.getConnection(jdbcUrl);
        this.runId = runId;
        connection.setAutoCommit(true);
        if (jdbcUrl.startsWith("jdbc:sqlite:")) {
            try (Statement st = connection.createStatement()) {
                // Clients write one file: wait for SQLite's write lock instead of failing at once.
                st.execute("PRAGMA busy_timeout = 30000");
            }
        }
    }

    /** Creates the table if missing (portable DDL) and this run's row, all counters at 0. */
    void create() throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (run_id VARCHAR(40) NOT NULL PRIMARY KEY, "
                    + "fenced_value BIGINT NOT NULL, fenced_fence BIGINT NOT NULL, "
                    + "wf_value BIGINT NOT NULL, wf_fence BIGINT NOT NULL, plain_value BIGINT NOT NULL)");
        }
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + TABLE
                + " (run_id, fenced_value, fenced_fence, wf_value, wf_fence, plain_value) VALUES (?, 0, 0, 0, 0, 0)")) {
            ps.setString(1, runId);
            ps.executeUpdate();
        }
    }

    /** FENCED's claim: raises the row's fence to {@code token} if it is below; false if a newer token got there. */
    boolean claim(long token) throws SQLException {
        return update("UPDATE " + TABLE + " SET fenced_fence = ? WHERE run_id = ? AND fenced_fence < ?", token, null, token);
    }

    /** The three counters: {fenced, write-fenced, unguarded}. */
    long[] read() throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT fenced_value, wf_value, plain_value FROM " + TABLE + " WHERE run_id = ?")) {
            ps.setString(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no register row for run " + runId + " in " + TABLE);
                }
                return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
            }
        }
    }

    /**
     * Writes one counter the way its kind guards it.
     *
     * @return false if the guard rejected the write (a newer token had claimed or written)
     */
    boolean write(Kind kind, long value, long token) throws SQLException {
        return switch (kind) {
            case FENCED -> update("UPDATE " + TABLE + " SET fenced_value = ? WHERE run_id = ? AND fenced_fence = ?", value, null, token);
            case WRITE_FENCED -> update("UPDATE " + TABLE + " SET wf_value = ?, wf_fence = ? WHERE run_id = ? AND wf_fence < ?",
                    value, token, token);
            case UNGUARDED -> update("UPDATE " + TABLE + " SET plain_value = ? WHERE run_id = ?", value, null, null);
        };
    }

    /** The fences: {fenced, write-fenced}. */
    long[] fences() throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT fenced_fence, wf_fence FROM " + TABLE + " WHERE run_id = ?")) {
            ps.setString(1, runId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no register row for run " + runId + " in " + TABLE);
                }
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    /** Binds (first, [second], runId, [last]) in statement order: the numbers around the run id. */
    private boolean update(String sql, long first, Long second, Long last) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            int i = 1;
            ps.setLong(i++, first);
            if (second != null) {
                ps.setLong(i++, second);
            }
            ps.setString(i++, runId);
            if (last != null) {
                ps.setLong(i, last);
            }
            return ps.executeUpdate() == 1;
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
