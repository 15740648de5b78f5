package io.holdfast.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/** Lock tables of their own for test classes, so that test classes never see each other's locks. */
final class TestTables {
    private TestTables() {
    }

    /** A fresh table name, {@code hf_t_<random>}. */
    static String fresh() {
        return "hf_t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16).toLowerCase(Locale.ROOT);
    }

    /** Drops {@code table} (and with it its index) on the server at {@code jdbcUrl}. */
    static void drop(String jdbcUrl, String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
        }
    }
}
