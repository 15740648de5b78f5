package io.holdfast.micrometer;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockListener.AcquireOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link HoldfastMetrics} on a real store: SQLite files, two clients on one file standing for two processes. */
class HoldfastMetricsTest {
    @TempDir
    Path directory;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<Holdfast> clients = new ArrayList<>();

    /** A client with metrics on the test's SQLite file. */
    private Holdfast measured() {
        return open(Holdfast.builder(uri()).listener(new HoldfastMetrics(registry, "sqlite")).connect());
    }

    /** Another client on the same file, without metrics: another process, as far as the locks go. */
    private Holdfast other() {
        return open(Holdfast.connect(uri()));
    }

    private Holdfast open(Holdfast client) {
        clients.add(client);
        return client;
    }

    private String uri() {
        return "sqlite:" + directory.resolve("locks.db");
    }

    @AfterEach
    void close() {
        clients.forEach(Holdfast::close);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anAcquireAndItsReleaseAreTimedCountedAndGauged() throws Exception {
        Holdfast holdfast = measured();
        Hold hold = holdfast.lock("orders/42").acquire(Duration.ofSeconds(5));

        assertThat(counter("holdfast.lock.acquired", "orders")).isEqualTo(1);
        assertThat(waitTimer("orders", "acquired").count()).isEqualTo(1);
        assertThat(gauge("holdfast.lock.holds", "orders")).isEqualTo(1);
        assertThat(gauge("holdfast.lock.waiters", "orders")).isZero();
        hold.reenter().close();
        assertThat(gauge("holdfast.lock.holds", "orders")).as("holds after a re-entered hold closed").isEqualTo(1);
        hold.close();

        assertThat(gauge("holdfast.lock.holds", "orders")).isZero();
        Timer held = registry.get("holdfast.lock.held").tags("backend", "sqlite", "group", "orders", "end", "released").timer();
        assertThat(held.count()).isEqualTo(1);
        assertThat(registry.get("holdfast.lock.held").tags("group", "orders", "end", "lost").timer().count()).isZero();
        assertThat(counter("holdfast.lock.timeouts", "orders")).isZero();
        assertThat(counter("holdfast.lock.lost", "orders")).isZero();
        assertThat(registry.getMeters()).as("every meter is tagged with backend and group").allSatisfy(m -> {
            assertThat(m.getId().getTag("backend")).isEqualTo("sqlite");
            assertThat(m.getId().getTag("group")).isEqualTo("orders");
        });
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWaitThatRunsOutBehindAnotherClientIsATimeoutARefusedTryIsBusyAndAWaiterMeanwhile() throws Exception {
        Hold theirs = other().lock("orders/7").acquire(Duration.ofSeconds(5));
        Holdfast holdfast = measured();

        assertThat(holdfast.lock("orders/7").tryAcquire(Duration.ofMillis(300))).isEmpty();
        assertThat(counter("holdfast.lock.timeouts", "orders")).isEqualTo(1);
        Timer timedOut = waitTimer("orders", "timed_out");
        assertThat(timedOut.count()).isEqualTo(1);
        assertThat(timedOut.totalTime(TimeUnit.MILLISECONDS)).as("time waited, at least the wait").isGreaterThanOrEqualTo(300);

        assertThat(holdfast.lock("orders/7").tryAcquire()).isEmpty();
        assertThat(counter("holdfast.lock.busy", "orders")).as("a refused tryAcquire() is busy").isEqualTo(1);
        assertThat(waitTimer("orders", "busy").count()).isEqualTo(1);
        assertThat(counter("holdfast.lock.timeouts", "orders")).as("and not a timeout").isEqualTo(1);

        CompletableFuture<Hold> waiting = holdfast.lock("orders/7").acquireAsync(Duration.ofMinutes(1));
        awaitValue("a waiter in the gauge", () -> gauge("holdfast.lock.waiters", "orders"), 1);
        waiting.cancel(false);
        assertThat(gauge("holdfast.lock.waiters", "orders")).isZero();
        assertThat(waitTimer("orders", "abandoned").count()).isEqualTo(1);
        assertThat(counter("holdfast.lock.acquired", "orders")).isZero();
        assertThat(gauge("holdfast.lock.holds", "orders")).isZero();
        theirs.close();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aForcedReleaseIsCountedLostWhenTheHolderFindsOut() throws Exception {
        Holdfast holdfast = measured();
        Hold hold = holdfast.lock("jobs/nightly", Duration.ofSeconds(1), true).acquire(Duration.ofSeconds(5));
        CountDownLatch lost = new CountDownLatch(1);
        hold.onLost((h, reason) -> lost.countDown()); // told after the LockListener
        assertThat(gauge("holdfast.lock.holds", "jobs")).isEqualTo(1);

        assertThat(other().admin().forceRelease("jobs/nightly")).isTrue();
        assertThat(lost.await(10, TimeUnit.SECONDS)).as("the holder found its hold lost at a renewal").isTrue();

        assertThat(counter("holdfast.lock.lost", "jobs")).isEqualTo(1);
        assertThat(registry.get("holdfast.lock.held").tags("group", "jobs", "end", "lost").timer().count()).isEqualTo(1);
        assertThat(registry.get("holdfast.lock.held").tags("group", "jobs", "end", "released").timer().count()).isZero();
        assertThat(gauge("holdfast.lock.holds", "jobs")).isZero();
        assertThatThrownBy(hold::close).isInstanceOf(io.holdfast.LockLostException.class);
        assertThat(gauge("holdfast.lock.holds", "jobs")).as("holds after the lost hold was closed").isZero();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void groupsAreBoundedWhateverTheNames() throws Exception {
        Holdfast holdfast = measured();
        for (int i = 0; i < 150; i++) {
            holdfast.lock("tenant" + i + "/job").tryAcquire().orElseThrow().close();
        }
        Set<String> groups = registry.find("holdfast.lock.acquired").counters().stream()
                .map(c -> c.getId().getTag("group")).collect(Collectors.toSet());
        assertThat(groups).hasSize(HoldfastMetrics.MAX_GROUPS + 1).contains("tenant0", "tenant99", HoldfastMetrics.OTHER)
                .doesNotContain("tenant100");
        assertThat(counter("holdfast.lock.acquired", HoldfastMetrics.OTHER)).isEqualTo(50);
        assertThat(registry.find("holdfast.lock.holds").gauges()).as("holds gauges").hasSize(HoldfastMetrics.MAX_GROUPS + 1);
        assertThat(registry.find("holdfast.lock.waiters").gauges()).as("waiters gauges").hasSize(HoldfastMetrics.MAX_GROUPS + 1);
        assertThat(gauge("holdfast.lock.holds", HoldfastMetrics.OTHER)).isZero();
        int meters = registry.getMeters().size();

        holdfast.lock("tenant149/again").tryAcquire().orElseThrow().close();
        holdfast.lock("more/names").tryAcquire().orElseThrow().close();
        assertThat(registry.getMeters()).as("meters after more groups past the cap").hasSize(meters);
        assertThat(counter("holdfast.lock.acquired", HoldfastMetrics.OTHER)).isEqualTo(52);
    }

    @Test
    void theDefaultGroupIsTheNamesFirstPart() {
        assertThat(HoldfastMetrics.defaultGroup("orders/42")).isEqualTo("orders");
        assertThat(HoldfastMetrics.defaultGroup("orders:42/lines")).isEqualTo("orders");
        assertThat(HoldfastMetrics.defaultGroup("nightly-backup")).isEqualTo("nightly-backup");
        assertThat(HoldfastMetrics.defaultGroup(":odd")).isEqualTo(":odd");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aGroupingOfTheApplicationsOwnIsUsed() throws Exception {
        Holdfast holdfast = open(Holdfast.builder(uri())
                .listener(new HoldfastMetrics(registry, "sqlite", name -> name.startsWith("orders") ? "sales" : null)).connect());
        holdfast.lock("orders/1").acquire(Duration.ofSeconds(5)).close();
        holdfast.lock("stock/1").acquire(Duration.ofSeconds(5)).close();
        assertThat(counter("holdfast.lock.acquired", "sales")).isEqualTo(1);
        assertThat(counter("holdfast.lock.acquired", HoldfastMetrics.OTHER)).as("a null group").isEqualTo(1);
    }

    @Test
    void failuresAndFailedRenewalsAreCounted() {
        // Events an outage of the store causes, told directly: a SQLite file cannot be made unreachable mid-test.
        HoldfastMetrics metrics = new HoldfastMetrics(registry, "sqlite");
        metrics.acquireStarted("orders/1");
        metrics.acquireEnded("orders/1", AcquireOutcome.FAILED, Duration.ofMillis(5), 0);
        metrics.renewalFailed("orders/2", 7, new RuntimeException("unreachable"));
        assertThat(counter("holdfast.lock.failures", "orders")).isEqualTo(1);
        assertThat(waitTimer("orders", "failed").count()).isEqualTo(1);
        assertThat(counter("holdfast.lock.renewal.failures", "orders")).isEqualTo(1);
        assertThat(gauge("holdfast.lock.waiters", "orders")).isZero();
    }

    @Test
    void badArgumentsAreRefused() {
        assertThatThrownBy(() -> new HoldfastMetrics(registry, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed");
        assertThatThrownBy(() -> new HoldfastMetrics(null, "sqlite")).hasMessageContaining("registry");
        assertThatThrownBy(() -> new HoldfastMetrics(registry, "sqlite", null)).hasMessageContaining("nameGroup");
    }

    private double counter(String name, String group) {
        Counter c = registry.get(name).tags("backend", "sqlite", "group", group).counter();
        return c.count();
    }

    private Timer waitTimer(String group, String outcome) {
        return registry.get("holdfast.lock.wait").tags("backend", "sqlite", "group", group, "outcome", outcome).timer();
    }

    private double gauge(String name, String group) {
        return registry.get(name).tags("backend", "sqlite", "group", group).gauge().value();
    }

    private static void awaitValue(String what, DoubleSupplier value, double expected) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (value.getAsDouble() != expected) {
            assertThat(System.nanoTime() - until).as("%s within 10 s (now %s)", what, value.getAsDouble()).isNegative();
            Thread.sleep(5);
        }
    }
}
