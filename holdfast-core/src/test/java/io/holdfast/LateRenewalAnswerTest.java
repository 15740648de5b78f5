package io.holdfast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store may answer a renewal late ({@link io.holdfast.spi.LockStore#renewEachAsync}; ZooKeeper waits a ping
 * interval to prove it). The renewer goes on renewing the client's other holds meanwhile, and the late answer
 * counts from the renewal's send time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LateRenewalAnswerTest {

    @Test
    void aBatchAnsweredLateDoesNotHoldUpTheRenewalOfOtherHolds() throws Exception {
        InMemoryStore store = new InMemoryStore(false, true);
        Duration slow = Duration.ofSeconds(6);
        store.answerLateFor = slow;
        store.lateAnswerMillis = 2_500; // longer than the short hold's whole lease
        try (Holdfast client = store.client()) {
            Hold slowHold = client.lock("slow", slow, true).acquire(Duration.ofSeconds(5));
            Lease slowLease = ((LeasedHold) slowHold).lease();
            long firstDeadline = slowLease.validUntilNanos();
            Hold shortHold = client.lock("short", Duration.ofSeconds(1), true).acquire(Duration.ofSeconds(5));
            List<String> losses = Collections.synchronizedList(new ArrayList<>());
            shortHold.onLost((h, why) -> losses.add("short: " + why));
            slowHold.onLost((h, why) -> losses.add("slow: " + why));

            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (slowLease.validUntilNanos() == firstDeadline) { // its first renewal answered (2.5 s after it was sent)
                assertThat(System.nanoTime() < until).as("the slow hold renewed within 30s").isTrue();
                Thread.sleep(20);
            }
            long seenAt = System.nanoTime(); // after the answer, so at least 2.5 s after the renewal was sent
            assertThat(losses).as("holds lost while a renewal's answer was outstanding").isEmpty();
            assertThat(shortHold.isValid()).isTrue();
            assertThat(slowHold.isValid()).isTrue();
            assertThat(slowLease.validUntilNanos()).as("the late answer counts from the renewal's send time, not its arrival")
                    .isLessThanOrEqualTo(seenAt - TimeUnit.MILLISECONDS.toNanos(store.lateAnswerMillis)
                            + slow.toNanos() - io.holdfast.spi.SafetyMargin.nanos(slow.toNanos()));
            shortHold.close();
            slowHold.close();
        }
    }
}
