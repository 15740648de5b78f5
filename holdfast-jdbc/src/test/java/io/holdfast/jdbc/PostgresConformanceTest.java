package io.holdfast.jdbc;

import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.ProxyStoreOutage;
import io.holdfast.testkit.StoreOutage;
import org.junit.jupiter.api.AfterAll;

import java.sql.SQLException;

/**
 * The conformance suite on the PostgreSQL server at 127.0.0.1:5432 (database test, user postgres), in
 * a lock table of this class, dropped afterwards. The outage cuts a loopback proxy in front of the
 * server; the unreachable store is a loopback port nobody listens on.
 */
class PostgresConformanceTest extends LockConformanceSuite {
    private static final String TABLE = TestTables.fresh();
    private static final String HOST = "127.0.0.1";
    static final int PORT = 5432;
    private static final int UNUSED_PORT = LoopbackPorts.unusedPort();

    static String url(int port) {
        return "jdbc:postgresql://" + HOST + ":" + port + "/test?user=postgres";
    }

    @AfterAll
    static void dropTable() throws SQLException {
        TestTables.drop(url(PORT), TABLE);
    }

    /** Holdfast's parameters of this class's clients: the table, and the mode if not the default. */
    String params() {
        return "&table=" + TABLE;
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
