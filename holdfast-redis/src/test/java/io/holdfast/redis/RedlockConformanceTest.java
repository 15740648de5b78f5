package io.holdfast.redis;

import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance suite on Redlock over 5 independent masters this class starts. The outage locks the
 * cut-off client's ACL user out of every master ({@link AclOutage}).
 */
class RedlockConformanceTest extends LockConformanceSuite {
    private static final int[] UNUSED = {LoopbackPorts.unusedPort(), LoopbackPorts.unusedPort(), LoopbackPorts.unusedPort()};
    private static RedlockServers servers;

    @BeforeAll
    static void startServers() {
        servers = new RedlockServers(5);
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
        return "redlock://127.0.0.1:" + UNUSED[0] + ",127.0.0.1:" + UNUSED[1] + ",127.0.0.1:" + UNUSED[2] + "?timeout=2s";
    }

    @Override
    protected String unreachableAddressHint() {
        return "127.0.0.1:" + UNUSED[0];
    }

    @Override
    protected StoreOutage outage() {
        return new AclOutage(servers.masters, (user, password) -> "redlock://" + user + ":" + password + "@" + servers.hosts()
                + "?prefix=conformance:&timeout=1s");
    }
}
