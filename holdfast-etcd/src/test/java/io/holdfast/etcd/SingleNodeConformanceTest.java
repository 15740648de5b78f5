package io.holdfast.etcd;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;
import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.ProxyStoreOutage;
import io.holdfast.testkit.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.UUID;

/**
 * The conformance suite on a single etcd member started for this class. Locks live under a key prefix of
 * their own. The outage cuts a loopback proxy in front of the member; the unreachable store is a loopback
 * port nobody listens on.
 */
class SingleNodeConformanceTest extends LockConformanceSuite {
    private static final String PREFIX = "conformance-" + UUID.randomUUID().toString().substring(0, 8);
    private static final int UNUSED_PORT = LoopbackPorts.unusedPort();
    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(1);
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
        return "etcd://127.0.0.1:" + UNUSED_PORT + "/" + PREFIX + "?connectTimeout=2s";
    }

    @Override
    protected String unreachableAddressHint() {
        return "127.0.0.1:" + UNUSED_PORT;
    }

    @Override
    protected StoreOutage outage() {
        EtcdCluster.Member member = etcd.members().get(0);
        return new ProxyStoreOutage("127.0.0.1", member.clientPort,
                port -> "etcd://127.0.0.1:" + port + "/" + PREFIX + "?requestTimeout=1s");
    }

    /** The killed-leader election runs here: the waiting candidate learns of the free lock by a predecessor watch on a store-ordered queue, and a lease that is an etcd lease. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aKilledLeaderProcessIsSucceededOnceItsLeaseRunsOut() throws Exception {
        killedLeaderProcessIsSucceededOnceItsLeaseRunsOut();
    }
}
