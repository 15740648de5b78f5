package io.holdfast.zookeeper;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Real ZooKeeper servers inside the test JVM (curator-test), on random loopback ports, with a short
 * tick so that short test leases get sessions of their own length: a session may last from one tick
 * ({@value #TICK_MS} ms) to {@value #MAX_SESSION_MS} ms.
 */
final class TestEnsembles {
    static final int TICK_MS = 200;
    static final int MAX_SESSION_MS = 60_000;
    private static final String CONTAINER_CHECK = "znode.container.checkIntervalMs";

    private TestEnsembles() {
    }

    private static InstanceSpec spec(int serverId) {
        // 0 connections per client address means unlimited: every test client connects from 127.0.0.1.
        return new InstanceSpec(null, -1, -1, -1, true, serverId, TICK_MS, 0,
                Map.of("maxSessionTimeout", String.valueOf(MAX_SESSION_MS)), "127.0.0.1");
    }

    /** A started standalone server. */
    static TestingServer single() throws Exception {
        return new TestingServer(spec(-1), true);
    }

    /** A started standalone server whose leader removes empty container nodes every {@code checkMs}. */
    static TestingServer singleWithContainerCheck(int checkMs) throws Exception {
        String before = System.getProperty(CONTAINER_CHECK);
        System.setProperty(CONTAINER_CHECK, String.valueOf(checkMs)); // read once, when the server starts
        try {
            return new TestingServer(spec(-1), true);
        } finally {
            if (before == null) {
                System.clearProperty(CONTAINER_CHECK);
            } else {
                System.setProperty(CONTAINER_CHECK, before);
            }
        }
    }

    /** A started ensemble of {@code size} servers. */
    static TestingCluster cluster(int size) throws Exception {
        List<InstanceSpec> specs = new ArrayList<>();
        for (int i = 1; i <= size; i++) {
            specs.add(spec(i));
        }
        TestingCluster cluster = new TestingCluster(specs);
        try {
            cluster.start();
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }
}
