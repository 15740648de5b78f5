package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockListener;
import io.holdfast.LockTimeoutException;
import io.holdfast.StoreUnavailableException;
import io.holdfast.testkit.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Holdfast bean from {@code holdfast.uri}, its settings and listeners, what happens without a store, with a bad
 * URI, or beside an application's own Holdfast bean, and the configuration metadata.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AutoConfigurationTest {

    @Test
    void uriMakesAClientThatClosesWithTheContext() {
        String uri = Runners.sqliteUri();
        Holdfast[] seen = new Holdfast[1];
        Runners.starter().withPropertyValues("holdfast.uri=" + uri, "holdfast.holder-name=orders-1", "holdfast.default-lease=7s")
                .run(context -> {
                    assertThat(context).hasSingleBean(Holdfast.class);
                    Holdfast holdfast = context.getBean(Holdfast.class);
                    seen[0] = holdfast;
                    assertThat(holdfast.describe()).startsWith("sqlite ");
                    try (Holdfast other = Holdfast.connect(uri); Hold hold = holdfast.lock("job").acquire(Duration.ofSeconds(5))) {
                        assertThat(other.lock("job").tryAcquire()).as("held through the bean").isEmpty();
                        var info = other.admin().status("job").orElseThrow();
                        assertThat(info.holder()).isEqualTo("orders-1");
                        assertThat(info.leaseRemaining()).as("holdfast.default-lease, not the 30 s default").isLessThanOrEqualTo(Duration.ofSeconds(7));
                        assertThat(info.fencingToken()).isEqualTo(hold.fencingToken());
                    }
                });
        assertThatThrownBy(() -> seen[0].lock("job").tryAcquire()).as("closed with the context")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    /** The starter's optional dependencies are optional: with only holdfast-jdbc there, nothing else is touched. */
    @Test
    void startsWithOnlyTheJdbcBackendAndNoActuatorOnTheClassPath() {
        Runners.starter().withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations.of(
                        HoldfastActuatorAutoConfiguration.class, HoldfastMetricsAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("io.holdfast.redis", "io.holdfast.etcd", "io.holdfast.zookeeper", "io.lettuce",
                        "io.etcd", "org.apache.curator", "org.springframework.data.redis", "org.springframework.boot.actuate", "io.micrometer"))
                .withPropertyValues("holdfast.uri=" + Runners.sqliteUri())
                .withBean(Beans.Job.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(Holdfast.class).doesNotHaveBean("holdfastHealthIndicator");
                    context.getBean(Beans.Job.class).run();
                    assertThat(context.getBean(Beans.Job.class).runs()).isEqualTo(1);
                });
    }

    @Test
    void noUriAndNoClientBeanMeansNoHoldfastBean() {
        Runners.starter().run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(Holdfast.class);
            assertThat(context).hasSingleBean(HoldfastClientConfigurations.NoHoldfastReport.class);
        });
    }

    @Test
    void lockedMethodsWithoutAStoreFailTheStartupWithWhatToSet() {
        Runners.starter().withBean(Beans.Job.class).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            assertThat(Causes.find(failure, HoldfastConfigurationException.class)).isNotNull()
                    .hasMessageContaining("@Locked methods need a Holdfast bean");
            List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
                    .load(FailureAnalyzer.class, SpringFactoriesLoader.FailureHandler.handleMessage((message, error) -> { }));
            assertThat(analyzers).anyMatch(a -> a instanceof HoldfastFailureAnalyzer);
            FailureAnalysis analysis = new HoldfastFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription()).contains("holdfast.uri is not set");
            assertThat(analysis.getAction()).contains("set holdfast.uri").contains("DataSource").contains("holdfast-jdbc");
        });
    }

    @Test
    void lockedMethodsWaitForHoldfastLockedWaitUnlessTheySetTheirOwn() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=" + uri, "holdfast.locked.wait=200ms").withBean(Beans.Job.class).run(context -> {
            Beans.Job job = context.getBean(Beans.Job.class);
            try (Holdfast other = Holdfast.connect(uri); Hold held = other.lock("job").acquire(Duration.ofSeconds(5))) {
                assertThatThrownBy(job::run).isInstanceOf(LockTimeoutException.class).hasMessageContaining("within 200ms");
            }
            job.run();
            assertThat(job.runs()).isEqualTo(1);
        });
    }

    @Test
    void holdfastLockedEnabledFalseLeavesLockedMethodsAlone() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=" + uri, "holdfast.locked.enabled=false").withBean(Beans.Job.class).run(context -> {
            assertThat(context).doesNotHaveBean(LockedAdvisor.class);
            Beans.Job job = context.getBean(Beans.Job.class);
            try (Holdfast other = Holdfast.connect(uri); Hold held = other.lock("job").acquire(Duration.ofSeconds(5))) {
                job.run();
            }
            assertThat(job.runs()).as("ran although another client held the lock").isEqualTo(1);
        });
    }

    @Test
    void aMisspeltUriParameterFailsTheStartupWithTheBackendsMessage() {
        Runners.starter().withPropertyValues("holdfast.uri=" + Runners.sqliteUri() + "?tabel=locks").run(context -> {
            assertThat(context).hasFailed();
            assertThat(Causes.find(context.getStartupFailure(), IllegalArgumentException.class)).isNotNull()
                    .hasMessageContaining("tabel").hasMessageContaining("allowed");
        });
    }

    @Test
    void anUnreachableStoreFailsTheStartupNamingIt() {
        int closed = LoopbackPorts.unusedPort();
        Runners.starter().withPropertyValues("holdfast.uri=redis://127.0.0.1:" + closed).run(context -> {
            assertThat(context).hasFailed();
            assertThat(Causes.find(context.getStartupFailure(), StoreUnavailableException.class)).isNotNull()
                    .hasMessageContaining("redis").hasMessageContaining("127.0.0.1:" + closed);
        });
    }

    @Test
    void anUnknownSchemeFailsTheStartupListingTheAcceptedOnes() {
        Runners.starter().withPropertyValues("holdfast.uri=mongodb://127.0.0.1").run(context -> {
            assertThat(context).hasFailed();
            assertThat(Causes.find(context.getStartupFailure(), IllegalArgumentException.class)).isNotNull()
                    .hasMessageContaining("no Holdfast backend accepts").hasMessageContaining("sqlite:");
        });
    }

    @Test
    void theApplicationsOwnHoldfastBeanTurnsTheAutoConfigurationOff() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=redis://127.0.0.1:" + LoopbackPorts.unusedPort())
                .withBean("mine", Holdfast.class, () -> Holdfast.connect(uri))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(Holdfast.class);
                    assertThat(context.getBean(Holdfast.class).describe()).startsWith("sqlite ");
                });
    }

    /** Every LockListener bean is registered on the builder; the core tells it once its listener wiring is in. */
    @Test
    void lockListenerBeansHearTheClientsLocks() {
        List<String> events = new CopyOnWriteArrayList<>();
        LockListener listener = new LockListener() {
            @Override
            public void acquireEnded(String lockName, AcquireOutcome outcome, Duration waited, long token) {
                events.add(lockName + " " + outcome);
            }
        };
        Runners.starter().withPropertyValues("holdfast.uri=" + Runners.sqliteUri())
                .withBean(LockListener.class, () -> listener)
                .run(context -> {
                    try (Hold hold = context.getBean(Holdfast.class).lock("heard").acquire(Duration.ofSeconds(5))) {
                        assertThat(hold.isValid()).isTrue();
                    }
                    assertThat(Await.within(Duration.ofSeconds(10), () -> !events.isEmpty())).isTrue();
                    assertThat(events).containsExactly("heard ACQUIRED");
                });
    }

    /** A BackendListenerFactory bean (the metrics configuration's kind) is asked for a listener for the client's backend. */
    @Test
    void backendListenerFactoriesLearnTheBackend() {
        List<String> backends = new CopyOnWriteArrayList<>();
        Runners.starter().withPropertyValues("holdfast.uri=" + Runners.sqliteUri())
                .withBean(BackendListenerFactory.class, () -> backend -> {
                    backends.add(backend);
                    return new LockListener() { };
                })
                .run(context -> {
                    assertThat(context).hasSingleBean(Holdfast.class);
                    assertThat(backends).containsExactly("sqlite");
                });
    }

    /** With holdfast-micrometer and a MeterRegistry bean, the starter's client is metered, tagged with its backend. */
    @Test
    void aMeterRegistryGetsTheClientsMeters() {
        Runners.starter().withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations.of(HoldfastMetricsAutoConfiguration.class))
                .withBean(io.micrometer.core.instrument.MeterRegistry.class, io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
                .withPropertyValues("holdfast.uri=" + Runners.sqliteUri())
                .run(context -> {
                    var registry = context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
                    try (Hold hold = context.getBean(Holdfast.class).lock("orders/1").acquire(Duration.ofSeconds(5))) {
                        assertThat(hold.isValid()).isTrue();
                        assertThat(registry.get("holdfast.lock.holds").tags("backend", "sqlite", "group", "orders").gauge().value())
                                .as("holds in force while held").isEqualTo(1.0);
                    }
                    assertThat(registry.get("holdfast.lock.acquired").tags("backend", "sqlite", "group", "orders").counter().count())
                            .isEqualTo(1.0);
                });
    }

    /** Without holdfast-micrometer on the class path the metrics configuration stays off (and the starter still starts). */
    @Test
    void metricsNeedHoldfastMicrometer() {
        Runners.starter().withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations.of(HoldfastMetricsAutoConfiguration.class))
                .withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader(io.holdfast.micrometer.HoldfastMetrics.class))
                .withBean(io.micrometer.core.instrument.MeterRegistry.class, io.micrometer.core.instrument.simple.SimpleMeterRegistry::new)
                .withPropertyValues("holdfast.uri=" + Runners.sqliteUri())
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(Holdfast.class);
                    assertThat(context.getBeansOfType(BackendListenerFactory.class)).isEmpty();
                });
    }

    @Test
    void configurationMetadataDescribesEveryProperty() throws Exception {
        String json;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("written by spring-boot-configuration-processor").isNotNull();
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String property : List.of("holdfast.uri", "holdfast.default-lease", "holdfast.holder-name", "holdfast.locked.enabled",
                "holdfast.locked.wait", "holdfast.locked.order", "holdfast.health.timeout", "holdfast.health.lost-window",
                "holdfast.logging.quiet-clients")) {
            int at = json.indexOf("\"name\": \"" + property + "\"");
            assertThat(at).as(property).isPositive();
            String entry = json.substring(at, json.indexOf('}', at));
            assertThat(entry).as(property + " has its Javadoc as description").contains("\"description\": \"");
        }
    }
}
