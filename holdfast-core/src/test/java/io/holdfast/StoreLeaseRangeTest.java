package io.holdfast;

import io.holdfast.spi.StoreTraits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Trial B8: a store's own lease limits ({@link StoreTraits#maxLease()}) narrow the core's range; every lease
 * refusal names the range of this store, and the default lease is brought into it unless the application set one.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StoreLeaseRangeTest {

    private static InMemoryStore storeKeepingAtMost(Duration max) {
        InMemoryStore store = new InMemoryStore(false, true);
        store.maxLease = max;
        return store;
    }

    @Test
    void aLeaseAboveTheStoresMaximumIsRefusedWhenTheLockIsMadeNamingTheStoresRangeAndWhy() {
        try (Holdfast client = Holdfast.of(storeKeepingAtMost(Duration.ofSeconds(40)))) {
            assertThatThrownBy(() -> client.lock("x", Duration.ofSeconds(60), true))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lease 1m is longer than the memory store at here can keep; allowed: 100ms to 40s (set by the test's maxLease)");
            assertThatThrownBy(() -> client.lock("x", Duration.ofMillis(50), false))
                    .hasMessage("lease 50ms is too short; it must be at least 100ms (allowed: 100ms to 40s)");
            assertThatThrownBy(() -> client.lock("x", null, true)).hasMessage("lease is null; allowed: 100ms to 40s");
            assertThat(client.lock("x", Duration.ofSeconds(40), true)).as("the store's maximum itself").isNotNull();
        }
    }

    @Test
    void aStoreWithoutALimitOfItsOwnKeepsTheCoresRange() {
        try (Holdfast client = Holdfast.of(new InMemoryStore(false, true))) {
            assertThatThrownBy(() -> client.lock("x", Duration.ofDays(8), true))
                    .hasMessage("lease 8d is too long; it must be at most 7d (allowed: 100ms to 7d)");
            assertThat(client.lock("x", Duration.ofDays(7), true)).isNotNull();
        }
        assertThat(new StoreTraits("any", false, Duration.ofSeconds(1), Duration.ofSeconds(1)).maxLease()).isEqualTo(Durations.MAX_LEASE);
        assertThat(new StoreTraits("any", false, Duration.ofSeconds(1), Duration.ofSeconds(1), true).limitsMaxLease()).isFalse();
    }

    @Test
    void aDefaultLeaseTheStoreCannotKeepIsRefusedAtConnect() {
        InMemoryStore store = storeKeepingAtMost(Duration.ofSeconds(20));
        assertThatThrownBy(() -> Holdfast.builder(store).defaultLease(Duration.ofSeconds(30)).connect())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lease 30s is longer than the memory store at here can keep; allowed: 100ms to 20s (set by the test's maxLease)");
    }

    @Test
    void theDefaultLeaseIsTheStoresLongestWhenThatIsShorterThan30s() throws Exception {
        try (Holdfast client = Holdfast.of(storeKeepingAtMost(Duration.ofSeconds(20)));
             Holdfast roomy = Holdfast.of(storeKeepingAtMost(Duration.ofSeconds(40)))) {
            try (Hold hold = client.lock("short").tryAcquire().orElseThrow();
                 Hold other = roomy.lock("long").tryAcquire().orElseThrow()) {
                assertThat(((LeasedHold) hold).lease().lease).as("default lease on a store keeping at most 20s")
                        .isEqualTo(Duration.ofSeconds(20));
                assertThat(((LeasedHold) other).lease().lease).as("default lease on a store keeping 40s").isEqualTo(Duration.ofSeconds(30));
            }
        }
    }

    @Test
    void aStoreThatCanKeepNoLeaseSaysSo() {
        InMemoryStore store = storeKeepingAtMost(Duration.ofMillis(10));
        assertThatThrownBy(() -> Holdfast.of(store))
                .hasMessage("the memory store at here can keep no lease: its longest, 10ms (set by the test's maxLease), "
                        + "is shorter than its shortest, 100ms");
        assertThatThrownBy(() -> new StoreTraits("any", false, Duration.ofSeconds(1), Duration.ofSeconds(1), false,
                Duration.ofSeconds(5), " ")).as("a store limit without its reason").isInstanceOf(IllegalArgumentException.class);
    }
}
