package io.holdfast.etcd;

import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.ProxyStoreOutage;
import io.holdfast.testkit.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.UUID;

/**
 * The conformance suite on a 3-member etcd cluster started for this class; clients know every member and
 * spread their calls over them. The outage cuts a loopback proxy in front of one member, which is the only
 * endpoint the cut-off client knows.
 */
class ClusterConformanceTest extends LockConformanceSuite {
    private static final String PREFIX = "conformance-" + UUID.randomUUID().toString().substring(0, 8);
    private static final int UNUSED_PORT = LoopbackPorts.unusedPort();
    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(3);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Override
    protected String uri() {
        return etcd.uri(PREFIX, null);
    }

    @Override
    protected String unreachableUri() {
        return "etcd://127.0.0.1:" + UNUSED_PORT + ",127.0.0.1:" + LoopbackPorts.unusedPort() + "/" + PREFIX + "?connectTimeout=2s";
    }

    @Override
    protected String unreachableAddressHint() {
        return "127.0.0.1:" + UNUSED_PORT;
    }

    @Override
    protected StoreOutage outage() {
        EtcdCluster.Member member = etcd.members().get(1);
        return new ProxyStoreOutage("127.0.0.1", member.clientPort,
                port -> "etcd://127.0.0.1:" + port + "/" + PREFIX + "?requestTimeout=1s");
    }
}
