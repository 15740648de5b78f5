package io.holdfast.zookeeper;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.testkit.LoopbackProxy;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding Z3: a waiter gives up while its connection is down (longer than its connect timeout,
 * shorter than its session), so its give-back cannot delete its queue node at once. The node must still
 * go once the connection is back: otherwise, when the holder releases, the abandoned node heads the
 * queue and nobody can take the lock for as long as the waiter's client lives.
 */
class GhostNodeTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aWaiterThatGivesUpDuringABlipLeavesNoNodeBehind() throws Exception {
        try (TestingServer server = TestEnsembles.single();
             LoopbackProxy proxy = new LoopbackProxy("127.0.0.1", server.getPort());
             Holdfast a = Holdfast.connect("zookeeper://127.0.0.1:" + server.getPort() + "/ghost");
             TrackedClient b = TrackedClient.connect("zookeeper://127.0.0.1:" + proxy.port() + "/ghost?connectTimeout=1s");
             Holdfast c = Holdfast.connect("zookeeper://127.0.0.1:" + server.getPort() + "/ghost")) {
            String name = "ghost/" + UUID.randomUUID();
            Hold held = a.lock(name).acquire(Duration.ofSeconds(10));
            CompletableFuture<Hold> waiter = b.holdfast().lock(name).acquireAsync(Duration.ofSeconds(3));
            Thread.sleep(1_500);
            assertThat(waiter.isDone()).as("B got the lock A holds").isFalse();

            proxy.cut(); // a blip of about 4 s: B's wait ends, and its give-back cannot reach the server
            long cutAt = System.nanoTime();
            try {
                waiter.get(20, TimeUnit.SECONDS);
            } catch (ExecutionException expected) {
                // timed out waiting, as it should
            }
            long sinceCut = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt);
            Thread.sleep(Math.max(0, 4_000 - sinceCut));
            proxy.restore();
            Session session = b.store().sessions().iterator().next();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!session.connected() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(session.connected()).as("B reconnected to its session").isTrue();

            held.close();
            long start = System.nanoTime();
            Optional<Hold> got = c.lock(name).tryAcquire(Duration.ofSeconds(15));
            System.out.printf("ghost: C %s %d ms after A released; status then: %s%n", got.isPresent() ? "acquired" : "did not acquire",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), a.admin().status(name));
            assertThat(got).as("C's wait of 15 s for a lock nobody uses (B's abandoned node must be gone)").isPresent();
            got.get().close();
        }
    }
}
