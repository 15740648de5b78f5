package io.holdfast.memcached;

import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.ProxyStoreOutage;
import io.holdfast.testkit.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance suite on one {@code memcached} this class starts on a free loopback port. The outage cuts
 * a loopback proxy in front of it; the unreachable store is a loopback port nobody listens on.
 */
class MemcachedConformanceTest extends LockConformanceSuite {
    private static final int UNUSED_PORT = LoopbackPorts.unusedPort();
    private static MemcachedServer server;

    @BeforeAll
    static void startServer() {
        server = MemcachedServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected String uri() {
        return server.uri("prefix=conformance:");
    }

    @Override
    protected String unreachableUri() {
        return "memcached://127.0.0.1:" + UNUSED_PORT + "?connectTimeout=1s";
    }

    @Override
    protected String unreachableAddressHint() {
        return "127.0.0.1:" + UNUSED_PORT;
    }

    @Override
    protected StoreOutage outage() {
        return new ProxyStoreOutage("127.0.0.1", server.port, port -> "memcached://127.0.0.1:" + port + "?prefix=conformance:");
    }
}
