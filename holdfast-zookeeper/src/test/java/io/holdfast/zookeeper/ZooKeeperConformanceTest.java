package io.holdfast.zookeeper;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;
import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.ProxyStoreOutage;
import io.holdfast.testkit.StoreOutage;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The conformance suite on one standalone ZooKeeper server. */
class ZooKeeperConformanceTest extends LockConformanceSuite {
    private static TestingServer server;
    private static int unusedPort;

    @BeforeAll
    static void start() throws Exception {
        server = TestEnsembles.single();
        unusedPort = LoopbackPorts.unusedPort();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected String uri() {
        return "zookeeper://127.0.0.1:" + server.getPort() + "/conformance-single";
    }

    @Override
    protected String unreachableUri() {
        return "zookeeper://127.0.0.1:" + unusedPort + "/conformance-single?connectTimeout=1s";
    }

    @Override
    protected String unreachableAddressHint() {
        return "127.0.0.1:" + unusedPort;
    }

    @Override
    protected StoreOutage outage() {
        return new ProxyStoreOutage("127.0.0.1", server.getPort(), port -> "zookeeper://127.0.0.1:" + port + "/conformance-single");
    }

    /** The killed-leader election runs here: the waiting candidate learns of the free lock by a predecessor watch, and a lease that is a session expiring. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aKilledLeaderProcessIsSucceededOnceItsLeaseRunsOut() throws Exception {
        killedLeaderProcessIsSucceededOnceItsLeaseRunsOut();
    }
}
