package io.holdfast;

import io.holdfast.spi.Attempt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store may say that it counts a grant's lease from an instant before the attempt was sent (etcd: the
 * session lease's last keep-alive); the hold's local deadline then counts from there, never from later.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LeaseStartTest {

    @Test
    void theEarlierOfSendTimeAndTheStoresLeaseStartCounts() {
        assertThat(Attempt.acquired(7).leaseStartNanos(100)).isEqualTo(100);
        assertThat(Attempt.acquired(7, 40).leaseStartNanos(100)).isEqualTo(40);
        assertThat(Attempt.acquired(7, 160).leaseStartNanos(100)).as("a later instant is ignored").isEqualTo(100);
        assertThat(Attempt.acquired(7, Long.MAX_VALUE).leaseStartNanos(Long.MIN_VALUE + 5))
                .as("nanoTime instants compare by difference (overflow)").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aGrantWhoseStoreLeaseStartedALeaseAgoIsNotValid() throws Exception {
        InMemoryStore store = new InMemoryStore(true, true);
        try (Holdfast client = Holdfast.builder(store).defaultLease(Duration.ofSeconds(30)).connect()) {
            store.grantsCountLeaseFromNanosAgo = TimeUnit.SECONDS.toNanos(2);
            try (Hold recent = client.lock("recent").acquire(Duration.ofSeconds(5))) {
                assertThat(recent.isValid()).as("counted from 2 s before: 28.5 s left").isTrue();
            }
            store.grantsCountLeaseFromNanosAgo = TimeUnit.SECONDS.toNanos(60);
            Hold stale = client.lock("stale").acquire(Duration.ofSeconds(5));
            assertThat(stale.isValid()).as("counted from 60 s before the acquire, a 30 s lease is over").isFalse();
        }
    }
}
