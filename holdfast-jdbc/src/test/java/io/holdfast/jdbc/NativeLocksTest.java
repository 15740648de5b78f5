package io.holdfast.jdbc;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.HoldfastException;
import io.holdfast.LockLostException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The variants on the database's own locks, on the real PostgreSQL and MariaDB servers: session locks
 * (mode=native) and row locks of open transactions (mode=row). Exclusion by the database's lock, tokens from
 * the lock table, and the loss of a hold whose session is ended.
 */
@Timeout(60)
class NativeLocksTest {
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

    /** Every server and mode, as "server mode". */
    static Stream<Arguments> serversAndModes() {
        return Stream.of(Arguments.of("postgresql", "native"), Arguments.of("mariadb", "native"),
                Arguments.of("postgresql", "row"), Arguments.of("mariadb", "row"));
    }

    private static String uri(String server, String mode) {
        String base = server.equals("postgresql") ? PG : MARIADB;
        return base + "&mode=" + mode + "&table=hf_" + mode + "_" + server;
    }

    private static String name() {
        return "native/" + UUID.randomUUID();
    }

    @ParameterizedTest
    @MethodSource("serversAndModes")
    void theDatabaseLockExcludesOtherClientsAndTokensGrow(String server, String mode) throws Exception {
        try (Holdfast a = Holdfast.connect(uri(server, mode)); Holdfast b = Holdfast.connect(uri(server, mode))) {
            assertThat(a.describe()).startsWith(server + "-" + mode);
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
    @MethodSource("serversAndModes")
    void endingTheHoldersSessionFreesTheLockAndTheHoldIsReportedLost(String server, String mode) throws Exception {
        try (Holdfast a = Holdfast.connect(uri(server, mode)); Holdfast b = Holdfast.connect(uri(server, mode))) {
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

    @ParameterizedTest
    @ValueSource(strings = {"native", "row"})
    void aClientHoldsAtMostPoolSizeMinusOneLocksAndSaysSo(String mode) throws Exception {
        try (Holdfast a = Holdfast.connect(uri("postgresql", mode) + "&poolSize=3")) {
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

    /** Review finding 9: concurrent acquires of distinct names must not pin more than poolSize - 1 connections. */
    @ParameterizedTest
    @ValueSource(strings = {"native", "row"})
    void concurrentAcquiresNeverPinMoreThanPoolSizeMinusOneConnections(String mode) throws Exception {
        int threads = 6;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try (Holdfast a = Holdfast.connect(uri("postgresql", mode) + "&poolSize=3")) {
            for (int round = 0; round < 10; round++) {
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Optional<Hold>>> tries = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    tries.add(executor.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        try {
                            return a.lock(name()).tryAcquire();
                        } catch (HoldfastException e) {
                            assertThat(e).hasMessageContaining("at most 2 locks at once");
                            return Optional.<Hold>empty();
                        }
                    }));
                }
                List<Hold> holds = new ArrayList<>();
                for (Future<Optional<Hold>> f : tries) {
                    f.get(30, TimeUnit.SECONDS).ifPresent(holds::add);
                }
                assertThat(holds).as("native holds granted at once in round %d (capacity 2)", round).hasSizeLessThanOrEqualTo(2);
                assertThat(a.admin().status(name())).as("a connection stays free for checks and status").isEmpty();
                for (Hold h : holds) {
                    h.close();
                }
            }
        } finally {
            executor.shutdownNow();
        }
    }

    /**
     * Review finding 22: the server ends sessions idle longer than {@code idle_session_timeout} /
     * {@code wait_timeout} (here 3 s, above the 2 s lease), and with a row lock, sessions idle in a transaction
     * longer than {@code idle_in_transaction_session_timeout} / {@code idle_transaction_timeout}. A pinned session
     * must not be ended, freeing the lock, while its hold is still valid: another client may take the lock only
     * once the hold is lost.
     */
    @ParameterizedTest
    @MethodSource("serversAndModes")
    void theServersIdleTimeoutNeverFreesAValidNativeHold(String server, String mode) throws Exception {
        String idle = server.equals("postgresql")
                ? "&options=-c%20" + (mode.equals("row") ? "idle_in_transaction_session_timeout" : "idle_session_timeout") + "%3D3000"
                : "&sessionVariables=" + (mode.equals("row") ? "idle_transaction_timeout" : "wait_timeout") + "=3";
        try (Holdfast a = Holdfast.connect(uri(server, mode) + idle); Holdfast b = Holdfast.connect(uri(server, mode))) {
            String name = name();
            Hold hold = a.lock(name, Duration.ofSeconds(2), true).acquire(Duration.ofSeconds(5));
            CountDownLatch lost = new CountDownLatch(1);
            hold.onLost((h, why) -> lost.countDown());
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            while (System.nanoTime() < end) {
                Optional<Hold> other = b.lock(name).tryAcquire();
                if (other.isPresent()) {
                    boolean stillValid = hold.isValid();
                    other.get().close();
                    assertThat(stillValid).as("another client took the lock while the first hold was still valid").isFalse();
                    break;
                }
                Thread.sleep(20);
            }
            assertThat(hold.isValid() || lost.getCount() == 0).as("the hold is either held or reported lost").isTrue();
            if (hold.isValid()) {
                hold.close();
            }
        }
    }

    @Test
    void sqliteHasNoSessionOrRowLocks() {
        assertThatThrownBy(() -> Holdfast.connect("sqlite:/tmp/holdfast-native-test.db?mode=native"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("use its default lock table");
        assertThatThrownBy(() -> Holdfast.connect("sqlite:/tmp/holdfast-native-test.db?mode=row"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SQLite has no row locks")
                .hasMessageContaining("use its default lock table");
        assertThatThrownBy(() -> Holdfast.connect(PG + "&mode=shared"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed: table");
    }
}
