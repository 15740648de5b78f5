package io.holdfast.memcached;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Trial B2: a second client whose URI has a typo is refused; it never takes the lock the first one holds. */
@Timeout(60)
class TypoedUriTest {
    private static MemcachedServer server;

    @BeforeAll
    static void start() {
        server = MemcachedServer.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aTypoInTheSecondClientsUriIsRefusedRatherThanSplittingTheLock() throws Exception {
        try (Holdfast first = Holdfast.connect(server.uri("prefix=svc:"));
             Hold hold = first.lock("typo/e2e").acquire(Duration.ofSeconds(5))) {
            assertThatThrownBy(() -> {
                try (Holdfast second = Holdfast.connect(server.uri("prefx=svc:"))) {
                    second.lock("typo/e2e").tryAcquire(Duration.ZERO).ifPresent(h -> {
                        h.close();
                        throw new AssertionError("the second client took the lock the first one holds");
                    });
                }
            }).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'prefx' is unknown");
            assertThat(hold.isValid()).isTrue();
        }
    }
}
