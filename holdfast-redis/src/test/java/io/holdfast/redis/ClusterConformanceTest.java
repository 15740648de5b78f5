package io.holdfast.redis;

import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.ProxyStoreOutage;
import io.holdfast.testkit.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance suite on a 3-master Redis Cluster this class starts. A Cluster client talks to every
 * master at the address the cluster announces, so a proxy in front of one seed cannot cut it off; the
 * outage instead locks the cut-off client's own ACL user out of every master ({@link AclOutage}).
 */
class ClusterConformanceTest extends LockConformanceSuite {
    private static final int UNUSED_PORT = LoopbackPorts.unusedPort();
    private static RedisClusterServers cluster;

    @BeforeAll
    static void startCluster() {
        cluster = new RedisClusterServers(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected String uri() {
        return "redis-cluster://" + cluster.seeds() + "?prefix=conformance:";
    }

    @Override
    protected String unreachableUri() {
        return "redis-cluster://127.0.0.1:" + UNUSED_PORT + "?timeout=2s";
    }

    @Override
    protected String unreachableAddressHint() {
        return "127.0.0.1:" + UNUSED_PORT;
    }

    @Override
    protected StoreOutage outage() {
        return new AclOutage(cluster.masters, (user, password) -> "redis-cluster://" + user + ":" + password + "@" + cluster.seeds()
                + "?prefix=conformance:&timeout=1s");
    }
}
