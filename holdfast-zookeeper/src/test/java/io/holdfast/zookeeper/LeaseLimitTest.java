package io.holdfast.zookeeper;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Trial B8, ZooKeeper half: the leases a ZooKeeper ensemble can keep are bounded by its
 * {@code maxSessionTimeout} (20 ticks unless set: 40 s at ZooKeeper's default 2 s tick). A lease outside
 * that range is refused when the lock is made, with one message naming this ensemble's range and why; the
 * default lease fits a default server, and on a server whose longest session is shorter than the default
 * lease, that longest session becomes the default.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseLimitTest {
    /** ZooKeeper's own defaults: tickTime 2 s, maxSessionTimeout 20 ticks (40 s), minSessionTimeout 2 ticks. */
    private static TestingServer defaultServer;
    /** A 200 ms tick and no maxSessionTimeout set: its longest session is 20 ticks, 4 s. */
    private static TestingServer shortTickServer;

    @BeforeAll
    static void start() throws Exception {
        defaultServer = new TestingServer(spec(2_000), true);
        shortTickServer = new TestingServer(spec(200), true);
    }

    @AfterAll
    static void stop() throws Exception {
        for (TestingServer s : new TestingServer[] {defaultServer, shortTickServer}) {
            if (s != null) {
                s.close();
            }
        }
    }

    private static InstanceSpec spec(int tickMs) {
        return new InstanceSpec(null, -1, -1, -1, true, -1, tickMs, 0, Map.of(), "127.0.0.1");
    }

    private static String uri(TestingServer server) {
        return "zookeeper://127.0.0.1:" + server.getPort() + "/lease-limit";
    }

    private static String name() {
        return "lease-limit/" + UUID.randomUUID();
    }

    @Test
    void aLeaseLongerThanTheEnsembleKeepsIsRefusedWhenTheLockIsMadeSayingWhy() {
        try (Holdfast holdfast = Holdfast.connect(uri(defaultServer))) {
            String name = name();
            assertThatThrownBy(() -> holdfast.lock(name, Duration.ofSeconds(60), true))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("lease 1m is longer than the zookeeper store at 127.0.0.1:" + defaultServer.getPort())
                    .hasMessageContaining("allowed: 1s to 40s (")
                    .hasMessageContaining("maxSessionTimeout");
            assertThat(holdfast.admin().status(name)).as("nothing was queued for the refused lease").isEmpty();
            try (Hold longest = holdfast.lock(name, Duration.ofSeconds(40), true).tryAcquire().orElseThrow()) {
                assertThat(longest.isValid()).as("a lease as long as the longest session").isTrue();
            }
        }
    }

    @Test
    void aLeaseTooShortNamesTheSameRange() {
        try (Holdfast holdfast = Holdfast.connect(uri(defaultServer))) {
            assertThatThrownBy(() -> holdfast.lock(name(), Duration.ofMillis(500), true))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lease 500ms is shorter than the zookeeper backend can keep; allowed: 1s to 40s");
        }
    }

    @Test
    void aDefaultLeaseLongerThanTheEnsembleKeepsIsRefusedAtConnectAndLeavesNoStoreOpen() {
        int openBefore = ZooKeeperLockStore.OPEN.size();
        assertThatThrownBy(() -> Holdfast.builder(uri(defaultServer)).defaultLease(Duration.ofMinutes(2)).connect())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("lease 2m is longer than the zookeeper store at")
                .hasMessageContaining("allowed: 1s to 40s (");
        assertThat(ZooKeeperLockStore.OPEN).as("stores left open by the refused connect").hasSize(openBefore);
    }

    @Test
    void theDefaultLeaseFitsADefaultServer() throws Exception {
        try (Holdfast holdfast = Holdfast.connect(uri(defaultServer))) {
            String name = name();
            try (Hold hold = holdfast.lock(name).tryAcquire().orElseThrow()) {
                LockInfo info = holdfast.admin().status(name).orElseThrow();
                assertThat(info.leaseRemaining()).as("the holder session's timeout, which is the lease").isEqualTo(Duration.ofSeconds(30));
                assertThat(hold.isValid()).isTrue();
            }
        }
    }

    @Test
    void onAServerWhoseLongestSessionIsShorterThanTheDefaultLeaseThatSessionIsTheDefault() throws Exception {
        try (Holdfast holdfast = Holdfast.connect(uri(shortTickServer))) {
            String name = name();
            try (Hold hold = holdfast.lock(name).tryAcquire().orElseThrow()) {
                LockInfo info = holdfast.admin().status(name).orElseThrow();
                assertThat(info.leaseRemaining()).as("the holder session's timeout, which is the lease").isEqualTo(Duration.ofSeconds(4));
                assertThat(hold.isValid()).isTrue();
            }
            assertThatThrownBy(() -> Holdfast.builder(uri(shortTickServer)).defaultLease(Duration.ofSeconds(30)).connect())
                    .as("a default lease set explicitly is not shortened")
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("allowed: 1s to 4s (");
        }
    }
}
