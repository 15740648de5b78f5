package io.holdfast.cli;

import io.holdfast.jdbc.JdbcFencing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;

/**
 * The demo's shop: one stock row per phase and a sales ledger, in any SQL database (SQLite, PostgreSQL,
 * MariaDB/MySQL). Rows are keyed by run id, so demos sharing a database do not meet.
 *
 * <pre>
 * holdfast_demo_stock(run_id, phase, qty, fence)   -- fence: highest fencing token written so far
 * holdfast_demo_sales(run_id, phase, worker, token) -- one row per sale a buyer believes it made
 * </pre>
 */
final class DemoShop implements AutoCloseable {
    static final String STOCK = "holdfast_demo_stock";
    static final String SALES = "holdfast_demo_sales";
    /** One write per token, as each buyer makes one sale per acquisition. */
    private static final JdbcFencing FENCED_STOCK = JdbcFencing.of(STOCK, "fence", "run_id", "phase").oncePerToken();
    /** Holdfast's own query parameters, which a JDBC driver must not see. */
    private static final Set<String> HOLDFAST_PARAMETERS = Set.of("table", "poolSize", "connectTimeout", "busyTimeout", "createTable");

    private final Connection connection;
    private final String runId;

    DemoShop(String jdbcUrl, String runId) throws SQLException {
        this.connection = DriverManager.getConnection(jdbcUrl);
        this.runId = runId;
        if (jdbcUrl.startsWith("jdbc:sqlite:")) {
            try (Statement st = connection.createStatement()) {
                // Several worker processes write the same file: wait for SQLite's write lock instead of failing.
                st.execute("PRAGMA busy_timeout = 30000");
            }
        }
    }

    /**
     * The JDBC URL for a Holdfast URI that names a JDBC database, without Holdfast's parameters; null for
     * other URIs (their stock lives in the demo's own SQLite file).
     */
    static String jdbcUrlOf(String holdfastUri) {
        if (!holdfastUri.startsWith("jdbc:")) {
            return null;
        }
        int q = holdfastUri.indexOf('?');
        if (q < 0) {
            return holdfastUri;
        }
        StringBuilder url = new StringBuilder(holdfastUri.substring(0, q));
        String sep = "?";
        for (String pair : holdfastUri.substring(q + 1).split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            if (!pair.isEmpty() && !HOLDFAST_PARAMETERS.contains(key)) {
                url.append(sep).append(pair);
                sep = "&";
            }
        }
        return url.toString();
    }

    /** Creates the tables if missing (portable DDL) and puts {@code qty} items in stock for each phase. */
    void setUp(int phases, int qty) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS " + STOCK + " (run_id VARCHAR(40) NOT NULL, phase INT NOT NULL, "
                    + "qty INT NOT NULL, fence BIGINT NOT NULL, PRIMARY KEY (run_id, phase))");
            st.execute("CREATE TABLE IF NOT EXISTS " + SALES + " (run_id VARCHAR(40) NOT NULL, phase INT NOT NULL, "
                    + "worker INT NOT NULL, token BIGINT NOT NULL)");
        }
        for (int phase = 1; phase <= phases; phase++) {
            try (PreparedStatement ps = connection.prepareStatement(
                    "INSERT INTO " + STOCK + " (run_id, phase, qty, fence) VALUES (?, ?, ?, 0)")) {
                ps.setString(1, runId);
                ps.setInt(2, phase);
                ps.setInt(3, qty);
                ps.executeUpdate();
            }
        }
    }

    /** The stock row: {qty, fence}. */
    long[] read(int phase) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT qty, fence FROM " + STOCK + " WHERE run_id = ? AND phase = ?")) {
            ps.setString(1, runId);
            ps.setInt(2, phase);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no stock row for run " + runId + " phase " + phase);
                }
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    /** The seeds' write: whatever the buyer computed from its read, unconditionally. */
    void write(int phase, long qty) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("UPDATE " + STOCK + " SET qty = ? WHERE run_id = ? AND phase = ?")) {
            ps.setLong(1, qty);
            ps.setString(2, runId);
            ps.setInt(3, phase);
            ps.executeUpdate();
        }
    }

    /**
     * The fenced write: applied only if no holder with this or a later token has written
     * ({@code UPDATE ... SET qty = ?, fence = ? WHERE run_id = ? AND phase = ? AND fence < ?}).
     *
     * @return false if a later token had written (the write is rejected)
     */
    boolean writeFenced(int phase, long qty, long token) throws SQLException {
        return FENCED_STOCK.update(connection, token, Map.of("qty", qty), runId, phase);
    }

    void recordSale(int phase, int worker, long token) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(
                "INSERT INTO " + SALES + " (run_id, phase, worker, token) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, runId);
            ps.setInt(2, phase);
            ps.setInt(3, worker);
            ps.setLong(4, token);
            ps.executeUpdate();
        }
    }

    int salesRecorded(int phase) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT COUNT(*) FROM " + SALES + " WHERE run_id = ? AND phase = ?")) {
            ps.setString(1, runId);
            ps.setInt(2, phase);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** Deletes this run's rows (the tables stay for other runs). */
    void deleteRun() throws SQLException {
        for (String table : new String[] {STOCK, SALES}) {
            try (PreparedStatement ps = connection.prepareStatement("DELETE FROM " + table + " WHERE run_id = ?")) {
                ps.setString(1, runId);
                ps.executeUpdate();
            }
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
