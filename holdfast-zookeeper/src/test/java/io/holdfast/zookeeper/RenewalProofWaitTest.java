package io.holdfast.zookeeper;

import io.holdfast.Hold;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A renewal proves that the ensemble's leader heard it by a second {@code sync} one ping interval after its
 * answers ({@link ZkRenewal}, README point 2). That wait must not hold up the renewals of the client's other
 * holds: the core renews all of a client's holds from one thread. Here one hold has a 30 s lease, whose proof
 * waits 3 s ({@code tickTime=5s} in the URI: longer than the servers' own tick, which only makes the proof
 * wait longer), and another has a 2 s lease, renewed about every 2/3 s and invalid 1.75 s after its last
 * renewal was sent. The short hold must live through the long hold's renewal.
 */
class RenewalProofWaitTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    private static final Duration SHORT = Duration.ofSeconds(2);

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void oneHoldsProofWaitDoesNotHoldUpTheRenewalOfAnother() throws Exception {
        try (TestingServer server = TestEnsembles.single();
             TrackedClient client = TrackedClient.connect("zookeeper://127.0.0.1:" + server.getPort() + "/proof-wait?tickTime=5s")) {
            Hold longHold = client.holdfast().lock("proof-wait/long", LONG, true).acquire(Duration.ofSeconds(10));
            long longAcquiredAt = System.nanoTime();
            Hold shortHold = client.holdfast().lock("proof-wait/short", SHORT, true).acquire(Duration.ofSeconds(10));
            List<String> losses = Collections.synchronizedList(new ArrayList<>());
            shortHold.onLost((h, why) -> losses.add(why));
            longHold.onLost((h, why) -> losses.add("the long hold: " + why));

            // A renewal of the long hold is due from lease/6 before lease/3 after the acquire: wait until one sent
            // then has been proven (its 3 s wait and second sync done).
            Session longSession = client.store().sessionFor(LONG);
            long sessionId = longSession.sessionId();
            long renewalFrom = longAcquiredAt + LONG.toNanos() / 6;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!longSession.proof.proven(sessionId, renewalFrom)) {
                assertThat(System.nanoTime() < deadline).as("a renewal of the long hold proven within 60s").isTrue();
                Thread.sleep(50);
            }
            assertThat(losses).as("holds lost while the long hold's renewal waited for its proof").isEmpty();
            assertThat(shortHold.isValid()).isTrue();
            assertThat(longHold.isValid()).isTrue();
            shortHold.close();
            longHold.close();
        }
    }
}
