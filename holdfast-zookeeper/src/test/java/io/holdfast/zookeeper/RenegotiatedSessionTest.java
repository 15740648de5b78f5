package io.holdfast.zookeeper;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.LoopbackProxy;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Review finding Z2: the holder's server is restarted (same port, same data, so the session survives)
 * with a lower {@code maxSessionTimeout}, and the holder reconnects to the same session, now clamped
 * shorter than its lease. Its next renewal must refuse to renew a hold in a session shorter than the
 * lease, so that when it is cut off and the server expires the short session, the hold is already invalid.
 */
class RenegotiatedSessionTest {
    private static final Duration LEASE = Duration.ofSeconds(15);

    private static InstanceSpec spec(File dataDir, int port, int maxSessionMs) {
        return new InstanceSpec(dataDir, port, -1, -1, false, -1, TestEnsembles.TICK_MS, 0,
                Map.of("maxSessionTimeout", String.valueOf(maxSessionMs)), "127.0.0.1");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aHoldInASessionRenegotiatedShorterThanItsLeaseIsNotRenewed() throws Exception {
        File dataDir = Files.createTempDirectory("holdfast-zk-renegotiated").toFile();
        int port = LoopbackPorts.unusedPort();
        TestingServer server = new TestingServer(spec(dataDir, port, 60_000), true);
        try (LoopbackProxy proxy = new LoopbackProxy("127.0.0.1", port);
             TrackedClient holder = TrackedClient.connect("zookeeper://127.0.0.1:" + proxy.port() + "/renegotiated?connectTimeout=2s")) {
            String name = "renegotiated/" + UUID.randomUUID();
            Hold hold = holder.holdfast().lock(name, LEASE, true).acquire(Duration.ofSeconds(10));
            Session session = holder.store().sessionFor(LEASE);
            long sessionId = session.sessionId();
            assertThat(session.negotiatedTimeoutMs()).as("session negotiated before the restart").isEqualTo(15_000);

            server.close();
            server = new TestingServer(spec(dataDir, port, 3_000), true);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(session.connected() && session.negotiatedTimeoutMs() == 3_000) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(session.negotiatedTimeoutMs()).as("session negotiated after the reconnect").isEqualTo(3_000);
            assertThat(session.sessionId()).as("the same session").isEqualTo(sessionId);
            assertThatThrownBy(() -> holder.holdfast().lock(name + "-new", Duration.ofSeconds(10), true).tryAcquire())
                    .as("a lease the client allowed when it connected, which the restarted server no longer grants")
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lease 10s is longer than the zookeeper store at")
                    .hasMessageContaining("can keep now; allowed: 1s to 3s (set by the servers' maxSessionTimeout");
            Thread.sleep(LEASE.toMillis() / 3 + 1_000); // one renewal in the shortened session

            try (Holdfast contender = Holdfast.connect("zookeeper://127.0.0.1:" + port + "/renegotiated")) {
                AtomicBoolean holderValidWhenContenderAcquired = new AtomicBoolean();
                CompletableFuture<Hold> next = contender.lock(name, Duration.ofSeconds(2), true).acquireAsync(Duration.ofSeconds(40))
                        .thenApply(h -> {
                            holderValidWhenContenderAcquired.set(hold.isValid());
                            return h;
                        });
                proxy.cut();
                long cutAt = System.nanoTime();
                Hold nextHold = next.get(40, TimeUnit.SECONDS);
                System.out.printf("renegotiated session: contender acquired %d ms after the cut; old hold valid then: %s%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt), holderValidWhenContenderAcquired.get());
                assertThat(holderValidWhenContenderAcquired.get())
                        .as("the hold renewed in a 3 s session for a 15 s lease was still valid when the contender acquired").isFalse();
                nextHold.close();
            }
        } finally {
            server.close();
            try (java.util.stream.Stream<java.nio.file.Path> files = Files.walk(dataDir.toPath())) {
                files.sorted(java.util.Comparator.reverseOrder()).map(java.nio.file.Path::toFile).forEach(File::delete);
            }
        }
    }
}
