package io.holdfast.torture;

import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.StoreControl;
import io.holdfast.testkit.torture.TortureResult;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Map;

/**
 * The torture run on a standalone ZooKeeper server inside the test JVM (curator-test, as holdfast-zookeeper's
 * tests run it), with a 200 ms tick so 2 s sessions are allowed. A restart stops the server and starts it
 * again on the same port and data directory. ZooKeeper is linearizable for writes: besides the fenced
 * counter, mutual exclusion and token order must hold.
 */
class ZooKeeperTortureTest {
    private TestingServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void underKillsPausesRestartsAndPartitionsTheLockHoldsAndTheFencedCounterStaysExact() throws Exception {
        // 0 connections per client address means unlimited: every client connects from 127.0.0.1.
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 200, 0, Map.of("maxSessionTimeout", "60000"), "127.0.0.1");
        server = new TestingServer(spec, true);
        StoreControl control = new StoreControl() {
            @Override
            public String describe() {
                return "ZooKeeper 127.0.0.1:" + server.getPort() + " (in the test JVM)";
            }

            @Override
            public void kill() throws Exception {
                server.stop();
            }

            @Override
            public void start() throws Exception {
                server.restart();
            }
        };

        TortureResult r = TortureRuns.run(TortureRuns.settings("zookeeper", "zookeeper://127.0.0.1:" + server.getPort() + "/torture",
                Fault.SINGLE_SERVER).build(), control);

        TortureRuns.assertFencedCounterExactUnderEveryFault(r, Fault.SINGLE_SERVER);
        TortureRuns.assertLinearizableLock(r);
    }
}
