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

    private static final java.util.Map<Class<?>, String> OF_CLASS = new java.util.concurrent.ConcurrentHashMap<>();

    /** The fresh table of test class {@code c}, the same for every call of the run. */
    static String of(Class<?> c) {
        return OF_CLASS.computeIfAbsent(c, k -> fresh());
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
