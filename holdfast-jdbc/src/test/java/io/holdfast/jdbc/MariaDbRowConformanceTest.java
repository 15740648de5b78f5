package io.holdfast.jdbc;

import org.junit.jupiter.api.AfterAll;

import java.sql.SQLException;

/**
 * The conformance suite on the MariaDB server of {@link MariaDbConformanceTest} in row-lock mode ({@code mode=row}),
 * in tables of this class, dropped afterwards.
 */
class MariaDbRowConformanceTest extends MariaDbConformanceTest {
    private static final String ROW_TABLE = TestTables.fresh();

    @AfterAll
    static void dropRowTables() throws SQLException {
        TestTables.drop(url(PORT), ROW_TABLE);
        TestTables.drop(url(PORT), ROW_TABLE + "_row_locks");
    }

    @Override
    String params() {
        return "&mode=row&table=" + ROW_TABLE;
    }

    @Override
    protected boolean releasedOnlyByTheHoldingClient() {
        return true;
    }
}
