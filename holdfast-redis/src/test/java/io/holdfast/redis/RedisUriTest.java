package io.holdfast.redis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Trial B2 and B3: a Redis URI Holdfast cannot read exactly is refused, saying what is allowed. */
class RedisUriTest {

    @ParameterizedTest
    @ValueSource(strings = {"redis://127.0.0.1:6379?prefx=svc:", "redis://127.0.0.1:6379?prefix=a&foo=bar",
            "redis://127.0.0.1:6379?Prefix=svc:", "redis://127.0.0.1:6379?TIMEOUT=1s", "redis://127.0.0.1:6379?maxpoll=1s",
            "redis-cluster://127.0.0.1:7000,127.0.0.1:7001?prefx=a", "redlock://h1:1,h2:2,h3:3?handof=0",
            "redis-sentinel://127.0.0.1:26379/?sentinelMasterId=m&waitReplica=1"})
    void unknownOrMisspeltParametersAreRefusedWithTheAllowedList(String uri) {
        assertThatThrownBy(() -> RedisTarget.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Redis URI '")
                .hasMessageContaining("is unknown")
                .hasMessageContaining("allowed: prefix, maxPoll, handoff, waitReplicas, waitTimeout, timeout, database");
    }

    @Test
    void aNearMissNamesTheParameterItResembles() {
        assertThatThrownBy(() -> RedisTarget.parse("redis://127.0.0.1:6379?prefx=svc:"))
                .hasMessageContaining("parameter 'prefx' is unknown (did you mean prefix?)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis://:6379", "redis://127.0.0.1:abc", "redis://127.0.0.1:99999", "redis://127.0.0.1:0",
            "rediss://:6380", "redis://user:pw@:6379", "redis-sentinel://:26379/?sentinelMasterId=m",
            "redis-sentinel://h:x/?sentinelMasterId=m", "redis-cluster://h:70000,h:7001", "redlock://h:1,h:2,h:99999"})
    void aMissingHostOrABadPortIsAUsageError(String uri) {
        assertThatThrownBy(() -> RedisTarget.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Redis URI '")
                .hasMessageContaining("allowed: redis://[[user]:password@]host[:port][/db]")
                .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("is not a number from 1 to 65535", "no host"));
    }

    @Test
    void theAllowedFormsStillParse() {
        assertThat(RedisTarget.parse("redis://127.0.0.1:6379?prefix=svc:&timeout=2s&database=1").prefix).isEqualTo("svc:");
        assertThat(RedisTarget.parse("redis://localhost").address).isEqualTo("localhost:6379");
        assertThat(RedisTarget.parse("redis://u:p%40ss@[::1]:6380/2").uris.get(0).getDatabase()).isEqualTo(2);
        assertThat(RedisTarget.parse("redis-sentinel://a:26379,b/?sentinelMasterId=m&clientName=x").mode).isEqualTo(RedisTarget.Mode.SENTINEL);
        assertThat(RedisTarget.parse("redis-cluster://a:7000,b:7001?maxPoll=1s&verifyPeer=NONE").uris).hasSize(2);
        assertThat(RedisTarget.parse("redis-socket:///tmp/redis.sock?prefix=p").prefix).isEqualTo("p");
        assertThat(RedisTarget.parse("redis://h?db=3").address).isEqualTo("h:6379/3");
    }
}
