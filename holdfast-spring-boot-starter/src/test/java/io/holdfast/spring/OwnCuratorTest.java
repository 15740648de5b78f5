package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without holdfast.uri and beside an application's CuratorFramework bean, the Holdfast bean opens its own ZooKeeper
 * sessions to the same ensemble (a zookeeper:// URI from Curator's connect string; a lease is a session of its own),
 * with lock nodes under the connect string's chroot, and leaves the application's Curator session alone.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class OwnCuratorTest {
    private static TestingServer zookeeper;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        if (zookeeper != null) {
            zookeeper.close();
        }
    }

    @Test
    void nextToTheApplicationsCuratorFramework() {
        String connect = zookeeper.getConnectString() + "/app";
        Runners.starter().withPropertyValues("holdfast.default-lease=10s")
                .withBean(CuratorFramework.class, () -> CuratorFrameworkFactory.newClient(connect, new RetryOneTime(100)),
                        bean -> {
                            bean.setInitMethodName("start");
                            bean.setDestroyMethodName("close");
                        })
                .run(context -> {
                    assertThat(CuratorUris.of(context.getBean(CuratorFramework.class)))
                            .isEqualTo("zookeeper://" + zookeeper.getConnectString() + "/app/holdfast");
                    Holdfast holdfast = context.getBean(Holdfast.class);
                    assertThat(holdfast.describe()).startsWith("zookeeper ");
                    CuratorFramework curator = context.getBean(CuratorFramework.class);
                    try (Hold hold = holdfast.lock("own-curator").acquire(Duration.ofSeconds(10))) {
                        List<String> nodes = curator.getChildren().forPath("/holdfast/own-curator");
                        assertThat(nodes).as("the hold's node, under the chroot /app, seen through the application's client").hasSize(1);
                        long owner = curator.checkExists().forPath("/holdfast/own-curator/" + nodes.get(0)).getEphemeralOwner();
                        assertThat(owner).as("the hold lives in a session of Holdfast's own")
                                .isNotZero().isNotEqualTo(curator.getZookeeperClient().getZooKeeper().getSessionId());
                    }
                    assertThat(curator.getZookeeperClient().isConnected()).as("the application's session").isTrue();
                });
    }
}
