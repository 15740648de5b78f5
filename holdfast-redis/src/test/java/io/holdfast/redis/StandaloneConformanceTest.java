package io.holdfast.redis;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;
import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.ProxyStoreOutage;
import io.holdfast.testkit.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance suite on one {@code redis-server} this class starts on a free loopback port. The outage
 * cuts a loopback proxy in front of it; the unreachable store is a loopback port nobody listens on.
 */
class StandaloneConformanceTest extends LockConformanceSuite {
    private static final int UNUSED_PORT = LoopbackPorts.unusedPort();
    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected String uri() {
        return "redis://127.0.0.1:" + server.port + "?prefix=conformance:";
    }

    @Override
    protected String unreachableUri() {
        return "redis://127.0.0.1:" + UNUSED_PORT + "?timeout=2s";
    }

    @Override
    protected String unreachableAddressHint() {
        return "127.0.0.1:" + UNUSED_PORT;
    }

    @Override
    protected StoreOutage outage() {
        return new ProxyStoreOutage("127.0.0.1", server.port, port -> "redis://127.0.0.1:" + port + "?prefix=conformance:&timeout=1s");
    }

    /** The killed-leader election runs here: the waiting candidate learns of the free lock by pub/sub to the next waiter. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aKilledLeaderProcessIsSucceededOnceItsLeaseRunsOut() throws Exception {
        killedLeaderProcessIsSucceededOnceItsLeaseRunsOut();
    }
}
