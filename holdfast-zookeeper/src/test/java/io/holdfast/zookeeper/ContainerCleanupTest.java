package io.holdfast.zookeeper;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lock directories are container nodes: once the last queue node under one is gone, the server removes
 * it, and then its empty parents, so distinct lock names leave nothing behind. The server here checks
 * for empty containers every 100 ms (production servers: every minute, 10,000 a minute at most).
 */
class ContainerCleanupTest {
    private static final int NAMES = 200;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void manyDistinctLockNamesLeaveNoEmptyDirectoriesBehind() throws Exception {
        try (TestingServer server = TestEnsembles.singleWithContainerCheck(100);
             TrackedClient client = TrackedClient.connect("zookeeper://127.0.0.1:" + server.getPort() + "/containers")) {
            Holdfast holdfast = client.holdfast();
            ZooKeeper zk = client.store().sessionFor(Duration.ofSeconds(30)).handleForTests();
            String run = UUID.randomUUID().toString();

            Hold held = holdfast.lock("tenants/" + run + "/0/jobs/nightly").acquire(Duration.ofSeconds(10));
            String heldDir = LockNodes.dir("/containers", "tenants/" + run + "/0/jobs/nightly");
            Stat dirStat = zk.exists(heldDir, false);
            assertThat(dirStat).as("directory of a held lock").isNotNull();
            held.close();
            for (int i = 1; i < NAMES; i++) {
                holdfast.lock("tenants/" + run + "/" + i + "/jobs/nightly").acquire(Duration.ofSeconds(10)).close();
            }

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int left = Integer.MAX_VALUE;
            while (System.nanoTime() < deadline) {
                left = countNodes(zk, "/containers");
                if (left == 0) {
                    break;
                }
                Thread.sleep(100);
            }
            assertThat(left).as("nodes left under /containers after %d locks were taken and released", NAMES).isZero();
            assertThat(holdfast.admin().status("tenants/" + run + "/0/jobs/nightly")).as("status of a cleaned-up name").isEmpty();
            try (Hold again = holdfast.lock("tenants/" + run + "/0/jobs/nightly").acquire(Duration.ofSeconds(10))) {
                assertThat(again.fencingToken()).as("a name whose directory was removed gets a greater token")
                        .isGreaterThan(held.fencingToken());
            }
        }
    }

    /** Nodes in the tree under {@code path}, the path included; 0 if it does not exist. */
    private static int countNodes(ZooKeeper zk, String path) throws Exception {
        try {
            int n = 1;
            for (String child : zk.getChildren(path, false)) {
                n += countNodes(zk, path + "/" + child);
            }
            return n;
        } catch (KeeperException.NoNodeException e) {
            return 0;
        }
    }
}
