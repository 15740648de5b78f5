package io.holdfast.zookeeper;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.HoldfastException;
import io.holdfast.LockInfo;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * With credentials in the URI, the client authenticates with ZooKeeper's digest scheme and every node
 * it creates admits that user alone: clients without the credentials can neither see, take, nor
 * force-release the lock, and say why.
 */
class DigestAclTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void lockNodesAdmitOnlyTheUserOfTheUri() throws Exception {
        try (TestingServer server = TestEnsembles.single()) {
            String hosts = "127.0.0.1:" + server.getPort();
            String name = "acl/" + UUID.randomUUID();
            try (TrackedClient alice = TrackedClient.connect("zookeeper://alice:s3cr%40t@" + hosts + "/secured");
                 Holdfast aliceAgain = Holdfast.connect("zookeeper://alice:s3cr%40t@" + hosts + "/secured");
                 Holdfast mallory = Holdfast.connect("zookeeper://mallory:guess@" + hosts + "/secured");
                 Holdfast anonymous = Holdfast.connect("zookeeper://" + hosts + "/secured")) {
                Hold hold = alice.holdfast().lock(name).acquire(Duration.ofSeconds(10));

                ZooKeeper aliceZk = alice.store().sessionFor(Duration.ofSeconds(30)).handleForTests();
                String dir = LockNodes.dir("/secured", name);
                String node = dir + "/" + aliceZk.getChildren(dir, false).get(0);
                List<ACL> acl = aliceZk.getACL(node, new Stat());
                assertThat(acl).hasSize(1);
                assertThat(acl.get(0).getId().getScheme()).isEqualTo("digest");
                assertThat(acl.get(0).getId().getId()).startsWith("alice:");
                assertThat(acl.get(0).getPerms()).isEqualTo(ZooDefs.Perms.ALL);
                assertThat(aliceZk.getACL(dir, new Stat())).as("the lock directory's ACL").isEqualTo(acl);

                LockInfo info = aliceAgain.admin().status(name).orElseThrow();
                assertThat(info.held()).as("another client with the same credentials sees the lock").isTrue();
                assertThat(info.fencingToken()).isEqualTo(hold.fencingToken());

                for (Holdfast outsider : List.of(mallory, anonymous)) {
                    assertThatThrownBy(() -> outsider.lock(name).tryAcquire()).isInstanceOf(HoldfastException.class)
                            .hasMessageContaining("NOAUTH").hasMessageContaining("same digest credentials");
                    assertThatThrownBy(() -> outsider.admin().forceRelease(name)).isInstanceOf(HoldfastException.class)
                            .hasMessageContaining("NOAUTH");
                    assertThatThrownBy(() -> outsider.admin().status(name)).isInstanceOf(HoldfastException.class)
                            .hasMessageContaining("NOAUTH");
                }
                assertThatThrownBy(() -> mallory.lock(name).tryAcquire()).hasMessageContaining("user 'mallory'")
                        .hasMessageNotContaining("guess");

                ZooKeeper raw = connect(hosts);
                try {
                    assertThatThrownBy(() -> raw.delete(node, -1)).as("an unauthenticated delete of the holder's node")
                            .isInstanceOf(KeeperException.NoAuthException.class);
                } finally {
                    raw.close();
                }
                assertThat(hold.isValid()).isTrue();
                hold.close();
                assertThat(aliceAgain.admin().status(name)).hasValueSatisfying(i -> assertThat(i.held()).isFalse());
            }
        }
    }

    private static ZooKeeper connect(String hosts) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(hosts, 10_000, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
        return zk;
    }
}
