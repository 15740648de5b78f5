package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The health indicator and the endpoint, on a real redis-server: UP while the store answers, DOWN once it is gone;
 * this holder's locks listed with token and lease left; losses counted in the health details.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ActuatorTest {
    private static ServerProcess redis;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = ServerProcess.redis();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    private static ApplicationContextRunner service(int port) {
        return Runners.starter().withConfiguration(AutoConfigurations.of(HoldfastActuatorAutoConfiguration.class))
                .withPropertyValues("holdfast.uri=redis://127.0.0.1:" + port, "holdfast.holder-name=svc-1",
                        "holdfast.health.timeout=1s", "management.endpoints.web.exposure.include=health,holdfast");
    }

    @Test
    void healthIsUpWhileTheStoreAnswersAndDownOnceItIsGone() throws Exception {
        try (ServerProcess own = ServerProcess.redis()) {
            service(own.port).run(context -> {
                HoldfastHealthIndicator indicator = context.getBean("holdfastHealthIndicator", HoldfastHealthIndicator.class);
                Health up = indicator.health();
                assertThat(up.getStatus()).isEqualTo(Status.UP);
                assertThat(up.getDetails()).containsEntry("store", "redis 127.0.0.1:" + own.port);
                own.kill();
                Health down = indicator.health();
                assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                assertThat(down.getDetails()).containsKey("error").containsEntry("store", "redis 127.0.0.1:" + own.port);
            });
        }
    }

    @Test
    void theEndpointListsThisHoldersLocksWithTokenAndLeaseLeft() {
        service(redis.port).withPropertyValues("holdfast.default-lease=20s").run(context -> {
            Holdfast holdfast = context.getBean(Holdfast.class);
            HoldfastEndpoint endpoint = context.getBean(HoldfastEndpoint.class);
            try (Holdfast other = Holdfast.builder("redis://127.0.0.1:" + redis.port).holderName("other").connect();
                 Hold mine = holdfast.lock("endpoint/mine").acquire(Duration.ofSeconds(5));
                 Hold theirs = other.lock("endpoint/theirs").acquire(Duration.ofSeconds(5))) {
                HoldfastEndpoint.Locks listed = endpoint.locks(null, "endpoint/");
                assertThat(listed.holder()).isEqualTo("svc-1");
                assertThat(listed.truncated()).isFalse();
                assertThat(listed.locks()).singleElement().satisfies(view -> {
                    assertThat(view.name()).isEqualTo("endpoint/mine");
                    assertThat(view.holder()).isEqualTo("svc-1");
                    assertThat(view.fencingToken()).isEqualTo(mine.fencingToken());
                    assertThat(view.leaseRemainingMillis()).isPositive().isLessThanOrEqualTo(20_000L);
                });
                assertThat(endpoint.locks(true, "endpoint/").locks()).extracting(HoldfastEndpoint.LockView::name)
                        .containsExactly("endpoint/mine", "endpoint/theirs");
                HoldfastEndpoint.LockView one = endpoint.lock(new String[] {"endpoint", "theirs"});
                assertThat(one.held()).isTrue();
                assertThat(one.holder()).isEqualTo("other");
                assertThat(one.fencingToken()).isEqualTo(theirs.fencingToken());
            }
            assertThat(endpoint.locks(null, "endpoint/").locks()).as("released").isEmpty();
        });
    }

    /** Counted by the starter's own listener: needs the core's listener wiring. */
    @Test
    void healthCountsTheHoldsLostRecently() {
        service(redis.port).withPropertyValues("holdfast.default-lease=2s").run(context -> {
            Holdfast holdfast = context.getBean(Holdfast.class);
            HoldfastHealthIndicator indicator = context.getBean("holdfastHealthIndicator", HoldfastHealthIndicator.class);
            assertThat(indicator.health().getDetails()).containsEntry("holdsLost", 0);
            Hold hold = holdfast.lock("health/lost").acquire(Duration.ofSeconds(5));
            CountDownLatch lost = new CountDownLatch(1);
            hold.onLost((h, reason) -> lost.countDown());
            try (Holdfast operator = Holdfast.connect("redis://127.0.0.1:" + redis.port)) {
                assertThat(operator.admin().forceRelease("health/lost")).isTrue();
            }
            assertThat(lost.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(Await.within(Duration.ofSeconds(10), () -> Integer.valueOf(1).equals(indicator.health().getDetails().get("holdsLost"))))
                    .isTrue();
            Health health = indicator.health();
            assertThat(health.getStatus()).as("a loss is a detail, not an outage").isEqualTo(Status.UP);
            @SuppressWarnings("unchecked")
            Map<String, Object> last = (Map<String, Object>) health.getDetails().get("lastLoss");
            assertThat(last).containsEntry("lock", "health/lost").containsEntry("fencingToken", hold.fencingToken());
        });
    }
}
