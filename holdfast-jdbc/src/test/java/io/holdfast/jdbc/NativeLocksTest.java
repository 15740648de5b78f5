package io.holdfast.jdbc;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.HoldfastException;
import io.holdfast.LockLostException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The session-lock variants (mode=native) on the real PostgreSQL and MariaDB servers: exclusion by the
 * database's own lock, tokens from the lock table, and the loss of a hold whose session is ended.
 */
@Timeout(60)
class NativeLocksTest {
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

    private static String uri(String server) {
        String base = server.equals("postgresql") ? PG : MARIADB;
        return base + "&mode=native&table=hf_native_" + server;
    }

    private static String name() {
        return "native/" + UUID.randomUUID();
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void theDatabaseLockExcludesOtherClientsAndTokensGrow(String server) throws Exception {
        try (Holdfast a = Holdfast.connect(uri(server)); Holdfast b = Holdfast.connect(uri(server))) {
            assertThat(a.describe()).startsWith(server + "-native");
            String name = name();
            long last = 0;
            for (int round = 0; round < 4; round++) {
                Holdfast holder = round % 2 == 0 ? a : b;
                Holdfast other = round % 2 == 0 ? b : a;
                try (Hold hold = holder.lock(name).acquire(Duration.ofSeconds(5))) {
                    assertThat(hold.fencingToken()).isGreaterThan(last);
                    last = hold.fencingToken();
                    assertThat(other.lock(name).tryAcquire()).isEmpty();
                    assertThat(other.admin().status(name)).get().satisfies(info -> {
                        assertThat(info.held()).isTrue();
                        assertThat(info.fencingToken()).isEqualTo(hold.fencingToken());
                    });
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void endingTheHoldersSessionFreesTheLockAndTheHoldIsReportedLost(String server) throws Exception {
        try (Holdfast a = Holdfast.connect(uri(server)); Holdfast b = Holdfast.connect(uri(server))) {
            String name = name();
            Hold hold = a.lock(name, Duration.ofSeconds(1), true).acquire(Duration.ofSeconds(5));
            CountDownLatch lost = new CountDownLatch(1);
            AtomicReference<String> reason = new AtomicReference<>();
            hold.onLost((h, why) -> {
                reason.set(why);
                lost.countDown();
            });
            assertThat(b.admin().forceRelease(name)).isTrue(); // terminates the holder's session
            Optional<Hold> taken = b.lock(name).tryAcquire(Duration.ofSeconds(5));
            assertThat(taken).isPresent();
            assertThat(taken.get().fencingToken()).isGreaterThan(hold.fencingToken());
            assertThat(lost.await(5, TimeUnit.SECONDS)).as("the renewal check reports the loss").isTrue();
            assertThat(reason.get()).contains("no longer has this hold");
            assertThat(hold.isValid()).isFalse();
            assertThatThrownBy(hold::close).isInstanceOf(LockLostException.class);
            taken.get().close();
        }
    }

    @Test
    void aClientHoldsAtMostPoolSizeMinusOneLocksAndSaysSo() throws Exception {
        try (Holdfast a = Holdfast.connect(uri("postgresql") + "&poolSize=3")) {
            List<Hold> holds = new ArrayList<>();
            holds.add(a.lock(name()).tryAcquire().orElseThrow());
            holds.add(a.lock(name()).tryAcquire().orElseThrow());
            assertThatThrownBy(() -> a.lock(name()).tryAcquire())
                    .isInstanceOf(HoldfastException.class)
                    .hasMessageContaining("at most 2 locks at once")
                    .hasMessageContaining("raise poolSize");
            for (Hold h : holds) {
                h.close();
            }
            assertThat(a.lock(name()).tryAcquire()).isPresent(); // connections went back to the pool
        }
    }

    @Test
    void sqliteHasNoSessionLocks() {
        assertThatThrownBy(() -> Holdfast.connect("sqlite:/tmp/holdfast-native-test.db?mode=native"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("use its default lock table");
        assertThatThrownBy(() -> Holdfast.connect(PG + "&mode=shared"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed: table");
    }
}
