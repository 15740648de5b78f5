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

    /** Test class: its table and the server's URL. */
    private static final java.util.Map<Class<?>, String[]> OF_CLASS = new java.util.concurrent.ConcurrentHashMap<>();

    /** The fresh table of test class {@code c} on the server at {@code jdbcUrl}, the same for every call of the run. */
    static String of(Class<?> c, String jdbcUrl) {
        return OF_CLASS.computeIfAbsent(c, k -> new String[] {fresh(), jdbcUrl})[0];
    }

    /** Drops the tables of test class {@code c} ({@link #of}): the lock table and the row-lock table beside it. */
    static void dropOf(Class<?> c) throws SQLException {
        String[] t = OF_CLASS.remove(c);
        if (t != null) {
            drop(t[1], t[0]);
            drop(t[1], t[0] + "_row_locks");
        }
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
