package io.holdfast.jdbc;

import org.junit.jupiter.api.AfterAll;

import java.sql.SQLException;

/**
 * The conformance suite on the MariaDB server of {@link MariaDbConformanceTest} in session-lock mode ({@code mode=native}),
 * in tables of this class, dropped afterwards.
 */
class MariaDbNativeConformanceTest extends MariaDbConformanceTest {
    private static final String NATIVE_TABLE = TestTables.fresh();

    @AfterAll
    static void dropNativeTables() throws SQLException {
        TestTables.drop(url(PORT), NATIVE_TABLE);
    }

    @Override
    String params() {
        return "&mode=native&table=" + NATIVE_TABLE;
    }

    @Override
    protected boolean releasedOnlyByTheHoldingClient() {
        return true;
    }
}
