package io.holdfast.redis;

import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.List;

/**
 * The conformance suite through Sentinel: a master, a replica and a Sentinel this class starts. Clients
 * ask the Sentinel for the master and then talk to the master directly, so the outage locks the cut-off
 * client's own ACL user out of the data nodes ({@link AclOutage}).
 */
class SentinelConformanceTest extends LockConformanceSuite {
    private static final int UNUSED_PORT = LoopbackPorts.unusedPort();
    private static SentinelServers servers;

    @BeforeAll
    static void startServers() {
        servers = new SentinelServers();
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.close();
        }
    }

    @Override
    protected String uri() {
        return servers.uri("prefix=conformance:");
    }

    @Override
    protected String unreachableUri() {
        return "redis-sentinel://127.0.0.1:" + UNUSED_PORT + "/?sentinelMasterId=" + SentinelServers.MASTER_NAME + "&timeout=2s";
    }

    @Override
    protected String unreachableAddressHint() {
        return "127.0.0.1:" + UNUSED_PORT;
    }

    @Override
    protected StoreOutage outage() {
        return new AclOutage(List.of(servers.master, servers.replica), (user, password) -> "redis-sentinel://" + user + ":" + password
                + "@127.0.0.1:" + servers.sentinel.port + "/?sentinelMasterId=" + SentinelServers.MASTER_NAME
                + "&prefix=conformance:&timeout=1s");
    }
}
