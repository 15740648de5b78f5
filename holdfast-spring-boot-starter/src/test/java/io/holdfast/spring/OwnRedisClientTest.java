package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.testkit.LoopbackPorts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without holdfast.uri, the Holdfast bean is built on the native Lettuce client of Spring Boot's
 * LettuceConnectionFactory (spring.data.redis.*), against a real redis-server; a factory in Cluster mode is refused
 * with a message saying to set holdfast.uri.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OwnRedisClientTest {
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

    @Test
    void onTheApplicationsLettuceConnectionFactory() {
        Runners.starter().withConfiguration(AutoConfigurations.of(RedisAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port)
                .run(context -> {
                    Holdfast holdfast = context.getBean(Holdfast.class);
                    assertThat(holdfast.describe()).startsWith("redis ");
                    try (Holdfast other = Holdfast.connect("redis://127.0.0.1:" + redis.port);
                         Hold hold = holdfast.lock("own-lettuce").acquire(Duration.ofSeconds(5))) {
                        assertThat(other.lock("own-lettuce").tryAcquire()).as("held through the application's client").isEmpty();
                        assertThat(other.admin().status("own-lettuce").orElseThrow().fencingToken()).isEqualTo(hold.fencingToken());
                    }
                    StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
                    template.opsForValue().set("app-key", "still-works");
                    assertThat(template.opsForValue().get("app-key")).isEqualTo("still-works");
                });
    }

    @Test
    void aClusterModeFactoryIsRefusedWithWhatToSet() {
        int closed = LoopbackPorts.unusedPort();
        Runners.starter()
                .withBean(LettuceConnectionFactory.class, () -> new LettuceConnectionFactory(new RedisClusterConfiguration(List.of("127.0.0.1:" + closed))))
                .run(context -> {
                    assertThat(context).hasFailed();
                    HoldfastConfigurationException refusal = Causes.find(context.getStartupFailure(), HoldfastConfigurationException.class);
                    assertThat(refusal).isNotNull().hasMessageContaining("Redis Cluster mode");
                    assertThat(refusal.action()).contains("holdfast.uri").contains("redis-cluster://");
                });
    }
}
