package io.holdfast.zookeeper;

import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.ProxyStoreOutage;
import io.holdfast.testkit.StoreOutage;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance suite on a three-server ensemble: clients name all three servers, the cut-off client
 * of the outage test reaches one of them through the proxy.
 */
class ZooKeeperEnsembleConformanceTest extends LockConformanceSuite {
    private static TestingCluster cluster;
    private static int unusedPort;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestEnsembles.cluster(3);
        unusedPort = LoopbackPorts.unusedPort();
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected String uri() {
        return "zookeeper://" + cluster.getConnectString() + "/conformance-ensemble";
    }

    @Override
    protected String unreachableUri() {
        return "zookeeper://127.0.0.1:" + unusedPort + ",127.0.0.1:" + unusedPort + "/conformance-ensemble?connectTimeout=1s";
    }

    @Override
    protected String unreachableAddressHint() {
        return "127.0.0.1:" + unusedPort;
    }

    @Override
    protected StoreOutage outage() {
        InstanceSpec one = cluster.getInstances().iterator().next();
        return new ProxyStoreOutage("127.0.0.1", one.getPort(), port -> "zookeeper://127.0.0.1:" + port + "/conformance-ensemble");
    }
}
