package io.holdfast.redis;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RedisFencing} against a real redis-server (and a 3-master Cluster): newer tokens apply, lower ones are
 * refused and leave the hash as it was, equal tokens apply (refused with {@code oncePerToken()}), 64-bit tokens compare
 * exactly, racing writers end with the highest token's fields, a real stale hold is refused, the script survives
 * {@code SCRIPT FLUSH}, and bad input is rejected.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisFencingTest {
    private static RedisServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;
    private static RedisFencing fencing;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
        client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + server.port));
        connection = client.connect();
        redis = connection.sync();
        fencing = RedisFencing.using(redis);
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    private static String key() {
        return "stock:" + UUID.randomUUID();
    }

    @Test
    void newerTokensApplyAndRecordTheirToken() {
        String key = key();
        assertThat(fencing.hset(5, key, Map.of("qty", "9", "note", "five"))).isTrue(); // no hash yet: any token
        assertThat(redis.hgetall(key)).isEqualTo(Map.of("qty", "9", "note", "five", "fence", "5"));
        assertThat(fencing.hset(8, key, Map.of("qty", "7"))).isTrue();
        assertThat(redis.hgetall(key)).isEqualTo(Map.of("qty", "7", "note", "five", "fence", "8"));
    }

    @Test
    void aLowerTokenIsRefusedAndTheHashIsUnchanged() {
        String key = key();
        redis.hset(key, Map.of("qty", "10", "fence", "9"));
        assertThat(fencing.hset(8, key, Map.of("qty", "1", "note", "stale"))).isFalse();
        assertThat(fencing.oncePerToken().hset(8, key, Map.of("qty", "1"))).isFalse();
        assertThat(redis.hgetall(key)).isEqualTo(Map.of("qty", "10", "fence", "9"));
        // Shorter in decimal is lower: "10" must not be taken for lower than "9" by a string comparison.
        assertThat(fencing.hset(10, key, Map.of("qty", "2"))).isTrue();
        assertThat(fencing.hset(9, key, Map.of("qty", "3"))).isFalse();
        assertThat(redis.hgetall(key)).isEqualTo(Map.of("qty", "2", "fence", "10"));
    }

    @Test
    void theSameTokenAppliesAgainUnlessOncePerToken() {
        String key = key();
        assertThat(fencing.hset(7, key, Map.of("qty", "9"))).isTrue();
        assertThat(fencing.hset(7, key, Map.of("qty", "8"))).isTrue();
        assertThat(redis.hgetall(key)).isEqualTo(Map.of("qty", "8", "fence", "7"));

        RedisFencing once = fencing.oncePerToken();
        assertThat(once.hset(7, key, Map.of("qty", "1"))).isFalse();
        assertThat(redis.hgetall(key)).isEqualTo(Map.of("qty", "8", "fence", "7"));
        assertThat(once.hset(11, key, Map.of("qty", "6"))).isTrue();
        assertThat(once.hset(11, key, Map.of("qty", "5"))).isFalse();
        assertThat(redis.hgetall(key)).isEqualTo(Map.of("qty", "6", "fence", "11"));
    }

    @Test
    void aClaimRaisesTheFenceAlone() {
        String key = key();
        redis.hset(key, Map.of("qty", "10", "fence", "3"));
        assertThat(fencing.hset(5, key, Map.of())).isTrue();
        assertThat(redis.hgetall(key)).isEqualTo(Map.of("qty", "10", "fence", "5"));
        assertThat(fencing.hset(4, key, Map.of("qty", "4"))).isFalse();
        assertThat(fencing.hset(5, key, Map.of("qty", "5"))).isTrue();
        assertThat(redis.hget(key, "qty")).isEqualTo("5");
    }

    /** Tokens above 2^53, where Lua's doubles can no longer tell neighbours apart (Redis tokens are µs clocks). */
    @Test
    void tokensCompareExactlyOverAll64Bits() {
        String key = key();
        long big = (1L << 53) + 1;
        assertThat(fencing.hset(big, key, Map.of("qty", "1"))).isTrue();
        assertThat(fencing.hset(big - 1, key, Map.of("qty", "2"))).isFalse();
        assertThat(fencing.oncePerToken().hset(big, key, Map.of("qty", "3"))).isFalse();
        assertThat(fencing.hset(Long.MAX_VALUE, key, Map.of("qty", "4"))).isTrue();
        assertThat(fencing.hset(Long.MAX_VALUE - 1, key, Map.of("qty", "5"))).isFalse();
        assertThat(redis.hgetall(key)).isEqualTo(Map.of("qty", "4", "fence", Long.toString(Long.MAX_VALUE)));
    }

    /** Writers with distinct tokens on connections of their own race, round after round: the highest token's fields stay. */
    @Test
    void concurrentWritersEndWithTheHighestToken() throws Exception {
        int writers = 4;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
        try {
            for (int i = 0; i < writers; i++) {
                connections.add(client.connect());
            }
            for (int round = 0; round < 20; round++) {
                String key = key();
                List<Long> tokens = new ArrayList<>();
                for (int i = 0; i < writers; i++) {
                    tokens.add(100L * round + 10L * i + 1);
                }
                Collections.shuffle(tokens);
                CyclicBarrier start = new CyclicBarrier(writers);
                List<Future<Boolean>> results = new ArrayList<>();
                for (int i = 0; i < writers; i++) {
                    RedisFencing own = RedisFencing.using(connections.get(i).sync());
                    long token = tokens.get(i);
                    results.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return own.hset(token, key, Map.of("qty", Long.toString(token), "by", "w" + token));
                    }));
                }
                long highest = Collections.max(tokens);
                for (int i = 0; i < writers; i++) {
                    boolean applied = results.get(i).get(30, TimeUnit.SECONDS);
                    if (tokens.get(i) == highest) {
                        assertThat(applied).as("the highest token %d", highest).isTrue();
                    }
                }
                assertThat(redis.hgetall(key)).isEqualTo(Map.of("qty", Long.toString(highest), "by", "w" + highest,
                        "fence", Long.toString(highest)));
            }
        } finally {
            pool.shutdownNow();
            connections.forEach(StatefulRedisConnection::close);
        }
    }

    /** Real holds: the first holder's lock is force-released and taken by a second; the first's late write is refused. */
    @Test
    void aStaleHoldIsRefusedAfterANewerHolderWrote() throws Exception {
        String uri = "redis://127.0.0.1:" + server.port + "?prefix=fencing:";
        try (Holdfast first = Holdfast.connect(uri); Holdfast second = Holdfast.connect(uri)) {
            String key = key();
            String name = "stock/" + key;
            Hold stale = first.lock(name).acquire(Duration.ofSeconds(5));
            assertThat(fencing.hset(stale, key, Map.of("qty", "9"))).isTrue();
            assertThat(second.admin().forceRelease(name)).isTrue();
            try (Hold newer = second.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(newer.fencingToken()).isGreaterThan(stale.fencingToken());
                assertThat(fencing.hset(newer, key, Map.of("qty", "8"))).isTrue();
                assertThat(fencing.hset(stale, key, Map.of("qty", "1"))).isFalse();
                assertThat(redis.hgetall(key)).isEqualTo(Map.of("qty", "8", "fence", Long.toString(newer.fencingToken())));
            }
        }
    }

    @Test
    void theScriptIsSentAgainAfterTheServerForgetsIt() {
        String key = key();
        assertThat(fencing.hset(1, key, Map.of("qty", "1"))).isTrue();
        assertThat(redis.scriptFlush()).isEqualTo("OK");
        assertThat(fencing.hset(2, key, Map.of("qty", "2"))).isTrue();
        assertThat(fencing.hset(1, key, Map.of("qty", "3"))).isFalse();
        assertThat(redis.hget(key, "qty")).isEqualTo("2");
    }

    @Test
    void aFenceFieldOfItsOwnName() {
        RedisFencing versioned = RedisFencing.using(redis, "version");
        String key = key();
        assertThat(versioned.hset(3, key, Map.of("fence", "just a field"))).isTrue();
        assertThat(versioned.hset(2, key, Map.of("fence", "stale"))).isFalse();
        assertThat(redis.hgetall(key)).isEqualTo(Map.of("fence", "just a field", "version", "3"));
        assertThat(versioned).hasToString("RedisFencing[field version <= token]");
    }

    @Test
    void badInputIsRejectedSayingWhy() {
        String key = key();
        assertThatThrownBy(() -> fencing.hset(5, key, Map.of("fence", "6")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("field 'fence' is the fence field; the write sets it to the token");
        assertThatThrownBy(() -> fencing.hset(0, key, Map.of("qty", "1")))
                .hasMessage("token 0 is not a fencing token; allowed: 1 and above");
        assertThatThrownBy(() -> fencing.hset(5, "", Map.of("qty", "1"))).hasMessage("the key is empty");
        assertThatThrownBy(() -> RedisFencing.using(redis, "")).hasMessageStartingWith("the fence field is empty");
        assertThat(redis.exists(key)).isZero();

        redis.hset(key, "fence", "12abc");
        assertThatThrownBy(() -> fencing.hset(5, key, Map.of("qty", "1")))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("field fence of " + key + " holds 12abc, not a fencing token");
        String text = key();
        redis.set(text, "not a hash");
        assertThatThrownBy(() -> fencing.hset(5, text, Map.of("qty", "1")))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("WRONGTYPE");
    }

    /** On a Cluster, through the cluster connection: each call goes to its key's slot, the script is loaded per master. */
    @Test
    void onACluster() {
        try (RedisClusterServers cluster = new RedisClusterServers(3)) {
            RedisClusterClient clusterClient = RedisClusterClient.create(RedisURI.create("redis://" + cluster.masters.get(0).address()));
            try (StatefulRedisClusterConnection<String, String> c = clusterClient.connect()) {
                RedisFencing onCluster = RedisFencing.using(c.sync());
                List<Integer> slots = new ArrayList<>();
                for (int i = 0; i < 12; i++) {
                    String key = "stock:" + i;
                    slots.add(SlotHash.getSlot(key));
                    assertThat(onCluster.hset(10, key, Map.of("qty", "1"))).isTrue();
                    assertThat(onCluster.hset(9, key, Map.of("qty", "2"))).isFalse();
                    assertThat(c.sync().hgetall(key)).isEqualTo(Map.of("qty", "1", "fence", "10"));
                }
                // The keys spread over the masters' slot ranges, so every master ran the script.
                assertThat(slots).anyMatch(s -> s < 5461).anyMatch(s -> s >= 5461 && s < 10923).anyMatch(s -> s >= 10923);
            } finally {
                clusterClient.shutdown();
            }
        }
    }
}
