package io.holdfast.jdbc;

import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.ProxyStoreOutage;
import io.holdfast.testkit.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInfo;

import java.sql.SQLException;

/**
 * The conformance suite on a database server of this machine at 127.0.0.1, in tables of the test class, dropped
 * afterwards, in the mode {@link #mode()}. The outage cuts a loopback proxy in front of the server; the unreachable
 * store is a loopback port nobody listens on.
 */
abstract class JdbcServerConformance extends LockConformanceSuite {
    static final String HOST = "127.0.0.1";
    private static final int UNUSED_PORT = LoopbackPorts.unusedPort();

    /** The server's JDBC URL through {@code port}, without Holdfast's parameters. */
    abstract String url(int port);

    /** The server's port. */
    abstract int port();

    /** The JDBC backend's mode under test: {@code table} unless a subclass runs {@code native} or {@code row}. */
    String mode() {
        return "table";
    }

    /** Drops the tables of the class that ran. */
    @AfterAll
    static void dropTables(TestInfo info) throws SQLException {
        TestTables.dropOf(info.getTestClass().orElseThrow());
    }

    /** Holdfast's parameters of this class's clients: its own table, and the mode if not the default. */
    private String params() {
        return "&table=" + TestTables.of(getClass(), url(port())) + (mode().equals("table") ? "" : "&mode=" + mode());
    }

    /** The native and row modes' locks belong to the holding client's database session. */
    @Override
    protected boolean releasedOnlyByTheHoldingClient() {
        return !mode().equals("table");
    }

    @Override
    protected String uri() {
        return url(port()) + params();
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
        return new ProxyStoreOutage(HOST, port(), p -> url(p) + params() + "&connectTimeout=1s");
    }
}
