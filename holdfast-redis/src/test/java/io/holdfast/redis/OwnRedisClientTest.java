package io.holdfast.redis;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store built with {@link RedisLocks} on an application's own {@link RedisClient} excludes a URI-opened client on
 * the same prefix, its waiter wakes when the other releases, and after the Holdfast client closes the application's
 * client still runs, its own connection still answers and the server sees none of Holdfast's connections left.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OwnRedisClientTest {
    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void storeOnTheApplicationsClient() throws Exception {
        RedisClient app = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + server.port));
        try {
            exercise(app, null, "redis://127.0.0.1:" + server.port + "?prefix=own:");
        } finally {
            app.shutdown();
        }
    }

    /** The application's client without a default URI, given a Sentinel URI: Holdfast's connections go to the master. */
    @Test
    void storeThroughSentinelOnTheApplicationsClient() throws Exception {
        try (SentinelServers sentinel = new SentinelServers()) {
            RedisClient app = RedisClient.create();
            try {
                RedisURI uri = RedisURI.create(sentinel.uri(""));
                exercise(app, uri, sentinel.uri("prefix=own:"));
            } finally {
                app.shutdown();
            }
        }
    }

    private static void exercise(RedisClient app, RedisURI uri, String otherUri) throws Exception {
        try (StatefulRedisConnection<String, String> appConnection = uri == null ? app.connect() : app.connect(uri)) {
            long before = clients(appConnection);
            RedisLocks.Builder builder = RedisLocks.builder(app).prefix("own:");
            if (uri != null) {
                builder.uri(uri);
            }
            Holdfast own = Holdfast.builder(builder.build()).holderName("own-client").connect();
            try (Holdfast other = Holdfast.connect(otherUri)) {
                try (Hold hold = own.lock("job").acquire(Duration.ofSeconds(5))) {
                    assertThat(other.lock("job").tryAcquire()).isEmpty();
                    assertThat(other.admin().status("job").orElseThrow().holder()).isEqualTo("own-client");
                }
                Hold theirs = other.lock("job").acquire(Duration.ofSeconds(5));
                assertThat(own.lock("job").tryAcquire()).isEmpty();
                CompletableFuture<Hold> waiter = own.lock("job").acquireAsync(Duration.ofSeconds(20));
                theirs.close();
                Hold mine = waiter.get(30, TimeUnit.SECONDS);
                assertThat(mine.fencingToken()).isGreaterThan(theirs.fencingToken());
                mine.close();
            } finally {
                own.close();
            }
            assertThat(appConnection.sync().set("app-key", "still-works")).isEqualTo("OK");
            try (StatefulRedisConnection<String, String> fresh = uri == null ? app.connect() : app.connect(uri)) {
                assertThat(fresh.sync().get("app-key")).isEqualTo("still-works");
                long after = -1;
                for (int i = 0; i < 50 && (after = clients(fresh)) != before + 1; i++) {
                    Thread.sleep(100);
                }
                assertThat(after).as("Holdfast's connections closed, the application's two open").isEqualTo(before + 1);
            }
        }
    }

    /** Connected clients the server counts. */
    private static long clients(StatefulRedisConnection<String, String> c) {
        return c.sync().clientList().lines().filter(l -> !l.isBlank()).count();
    }
}
