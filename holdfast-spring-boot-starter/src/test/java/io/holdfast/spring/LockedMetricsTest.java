package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockLostException;
import io.holdfast.LockTimeoutException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.RequiredSearch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Meters of the starter's client in the {@link MeterRegistry} Spring Boot's metrics auto-configuration makes, recorded
 * through {@link Locked} methods: a wait that runs out behind another client's hold is a timeout (and so is a skipped
 * call), and a hold an operator force-released while its method ran is a loss, each counted under its backend and
 * lock-name group.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LockedMetricsTest {

    @Test
    void aTimeoutAndAForcedLossAreCountedOnSqlite() {
        timeoutAndLoss(Runners.sqliteUri(), "sqlite");
    }

    @Test
    void aTimeoutAndAForcedLossAreCountedOnPostgres() {
        timeoutAndLoss(Runners.POSTGRES_URI, "postgresql");
    }

    private static void timeoutAndLoss(String uri, String backend) {
        String group = "metrics-" + UUID.randomUUID();
        Runners.starter()
                .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class, HoldfastMetricsAutoConfiguration.class))
                .withPropertyValues("holdfast.uri=" + uri, "holdfast.default-lease=2s", "metrics.group=" + group)
                .withBean(Beans.Measured.class)
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    Beans.Measured measured = context.getBean(Beans.Measured.class);
                    try (Holdfast other = Holdfast.connect(uri)) {
                        try (Hold held = other.lock(group + "/waited").acquire(Duration.ofSeconds(5))) {
                            assertThatThrownBy(measured::shortWait).isInstanceOf(LockTimeoutException.class);
                        }
                        assertThat(meter(registry, "holdfast.lock.timeouts", backend, group).counter().count()).isEqualTo(1);
                        assertThat(meter(registry, "holdfast.lock.wait", backend, group).tag("outcome", "timed_out").timer().count())
                                .isEqualTo(1);
                        assertThat(meter(registry, "holdfast.lock.acquired", backend, group).counter().count()).isZero();
                        try (Hold held = other.lock(group + "/waited").acquire(Duration.ofSeconds(5))) {
                            assertThat(measured.skipping()).isNull();
                        }
                        assertThat(meter(registry, "holdfast.lock.busy", backend, group).counter().count())
                                .as("a skipped call is a refused attempt").isEqualTo(1);
                        assertThat(meter(registry, "holdfast.lock.wait", backend, group).tag("outcome", "busy").timer().count())
                                .isEqualTo(1);
                        assertThat(meter(registry, "holdfast.lock.timeouts", backend, group).counter().count())
                                .as("a skip is not a timeout").isEqualTo(1);

                        forceReleaseWhileRunning(measured, other, group + "/lost");
                        assertThat(meter(registry, "holdfast.lock.lost", backend, group).counter().count()).isEqualTo(1);
                        assertThat(meter(registry, "holdfast.lock.held", backend, group).tag("end", "lost").timer().count())
                                .isEqualTo(1);
                        assertThat(meter(registry, "holdfast.lock.acquired", backend, group).counter().count()).isEqualTo(1);
                        assertThat(meter(registry, "holdfast.lock.timeouts", backend, group).counter().count())
                                .as("timeouts, still").isEqualTo(1);
                        assertThat(meter(registry, "holdfast.lock.holds", backend, group).gauge().value()).isZero();
                    }
                });
    }

    /** Calls {@code untilLost} on another thread, force-releases its lock once it runs, and checks the call's loss. */
    private static void forceReleaseWhileRunning(Beans.Measured measured, Holdfast operator, String name) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Void> call = CompletableFuture.runAsync(() -> {
                try {
                    measured.untilLost(started);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, caller);
            assertThat(started.await(30, TimeUnit.SECONDS)).as("the method runs").isTrue();
            assertThat(operator.admin().forceRelease(name)).isTrue();
            assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(LockLostException.class);
        } finally {
            caller.shutdownNow();
        }
    }

    private static RequiredSearch meter(MeterRegistry registry, String name, String backend, String group) {
        return registry.get(name).tags("backend", backend, "group", group);
    }
}
