package io.holdfast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Holdfast#builder(io.holdfast.spi.LockStore)} takes the URI builder's settings (the lease here; the holder name is shown by each backend's own-client test) and uses the given store. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StoreBuilderTest {

    @Test
    void settingsApplyToAClientOverAGivenStore() throws Exception {
        InMemoryStore store = new InMemoryStore(false, true);
        Holdfast client = Holdfast.builder(store).defaultLease(Duration.ofSeconds(7)).holderName("app-1").connect();
        try (Holdfast other = Holdfast.of(store)) {
            try (Hold hold = client.lock("job").acquire(Duration.ofSeconds(5))) {
                LockInfo info = other.admin().status("job").orElseThrow();
                assertThat(info.leaseRemaining()).isLessThanOrEqualTo(Duration.ofSeconds(7)); // not the 30 s default
                assertThat(other.lock("job").tryAcquire()).isEmpty();
            }
            assertThat(other.lock("job").tryAcquire()).isPresent();
        } finally {
            client.close();
        }
        assertThatThrownBy(() -> client.lock("job").tryAcquire()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Holdfast.builder((io.holdfast.spi.LockStore) null)).isInstanceOf(NullPointerException.class);
    }
}
