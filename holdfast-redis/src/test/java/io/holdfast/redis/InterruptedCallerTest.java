package io.holdfast.redis;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding 10: a thread whose interrupt flag is set (its task was cancelled, and it restored the flag
 * as it should) can still release and try: the store's answer is reported, never a false "unavailable",
 * and the flag is kept for the caller.
 */
class InterruptedCallerTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anInterruptedThreadReleasesAndTriesWithTheStoresAnswer() throws Exception {
        try (RedisServer server = RedisServer.start();
             Holdfast client = Holdfast.connect("redis://" + server.address() + "?prefix=intr:")) {
            Hold hold = client.lock("job").acquire(Duration.ofSeconds(5));
            Thread.currentThread().interrupt();
            try {
                hold.close(); // must not throw: the release reaches Redis
                assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag kept after close()").isTrue();
                Optional<Hold> again = client.lock("job").tryAcquire();
                assertThat(again).as("tryAcquire() on an interrupted thread, the lock being free").isPresent();
                assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag kept after tryAcquire()").isTrue();
                again.get().close();
            } finally {
                Thread.interrupted();
            }
            assertThat(client.admin().status("job")).hasValueSatisfying(info -> assertThat(info.held()).isFalse());
        }
    }
}
