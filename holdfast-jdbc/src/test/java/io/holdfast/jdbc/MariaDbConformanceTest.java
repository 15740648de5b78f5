package io.holdfast.jdbc;

import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.ProxyStoreOutage;
import io.holdfast.testkit.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInfo;

import java.sql.SQLException;

/**
 * The conformance suite on the MariaDB server at 127.0.0.1:3306 (database test, user root), in
 * a lock table of this class, dropped afterwards. The outage cuts a loopback proxy in front of the
 * server; the unreachable store is a loopback port nobody listens on.
 */
class MariaDbConformanceTest extends LockConformanceSuite {
    private static final String HOST = "127.0.0.1";
    static final int PORT = 3306;
    private static final int UNUSED_PORT = LoopbackPorts.unusedPort();

    static String url(int port) {
        return "jdbc:mariadb://" + HOST + ":" + port + "/test?user=root";
    }

    /** Drops the tables of the class that ran (this one or a subclass for another mode). */
    @AfterAll
    static void dropTables(TestInfo info) throws SQLException {
        String table = TestTables.of(info.getTestClass().orElseThrow());
        TestTables.drop(url(PORT), table);
        TestTables.drop(url(PORT), table + "_row_locks");
    }

    /** The JDBC backend's mode under test: {@code table} here; subclasses run {@code native} and {@code row}. */
    String mode() {
        return "table";
    }

    /** Holdfast's parameters of this class's clients: its own table, and the mode if not the default. */
    private String params() {
        return "&table=" + TestTables.of(getClass()) + (mode().equals("table") ? "" : "&mode=" + mode());
    }

    /** The native and row modes' locks belong to the holding client's database session. */
    @Override
    protected boolean releasedOnlyByTheHoldingClient() {
        return !mode().equals("table");
    }

    @Override
    protected String uri() {
        return url(PORT) + params();
    }

    @Override
    protected String unreachableUri() {
        return url(UNUSED_PORT) + params() + "&connectTimeout=2s";
    }

    @Override
    protected String unreachableAddressHint() {
        return HOST + ":" + UNUSED_PORT;
    }

    @Override
    protected StoreOutage outage() {
        return new ProxyStoreOutage(HOST, PORT, port -> url(port) + params() + "&connectTimeout=1s");
    }
}
