package io.holdfast.memcached;

import io.holdfast.spi.Attempt;
import io.holdfast.spi.LockStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review findings M1 and M2, at store level on a real {@code memcached}: a retry that adopts its own completed
 * acquisition gives the key a fresh expiry; a counter lost to eviction never issues a token below one the
 * acquirer has already seen for the name.
 */
class AdoptAndReseedTest {
    private static MemcachedServer server;
    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void startServer() {
        server = MemcachedServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void closeEverything() throws Exception {
        while (!toClose.isEmpty()) {
            toClose.pop().close();
        }
    }

    private LockStore store() {
        LockStore s = new MemcachedLockStoreProvider().open(server.uri("prefix=adopt:"));
        toClose.push(s);
        return s;
    }

    /**
     * M1: the first attempt stored the owner's value with its token (expiry ceil(lease) + 2 s) and its reply was
     * lost; the owner's retry 4 s later adopts it. The core then counts the hold valid until the retry's send time
     * + lease - margin, so the server must keep the key at least that long.
     */
    @Test
    @Timeout(60)
    void aRetryThatAdoptsItsCompletedAcquisitionRefreshesTheExpiry() throws Exception {
        String name = "adopt/" + run;
        Duration lease = Duration.ofSeconds(5);
        long margin = TimeUnit.MILLISECONDS.toNanos(250); // the core's margin for a 5 s lease
        LockStore store = store();
        String value = new LockValue(42, lease.toMillis(), "owner-b", "test").encode();
        int expiry = MemcachedLockStore.expirySeconds(lease);
        assertThat(server.command("add adopt:lock:" + name + " 0 " + expiry + " " + value.length() + "\r\n" + value))
                .isEqualTo("STORED");
        Thread.sleep(4_000);
        long sent = System.nanoTime();
        Attempt retry = store.tryAcquire(name, "owner-b", "test", lease);
        assertThat(retry.acquired()).isTrue();
        assertThat(retry.fencingToken()).as("the token of the completed acquisition").isEqualTo(42);
        long probed = System.nanoTime();
        MetaProbe probe = new MetaProbe("memcached", "test", 5_000, 5_000);
        MetaProbe.Entry entry = probe.get(new InetSocketAddress("127.0.0.1", server.port), List.of("adopt:lock:" + name))
                .get("adopt:lock:" + name);
        assertThat(entry).as("the key right after the retry").isNotNull();
        // The server's one-second clock: a key with t seconds left lives more than t - 1 seconds from the probe.
        long keyLivesAtLeastUntil = probed + TimeUnit.SECONDS.toNanos(entry.ttlSeconds() - 1);
        long coreDeadline = sent + lease.toNanos() - margin;
        System.out.printf("adopt: server ttl %d s right after the retry; key lives at least %d ms past the core's deadline%n",
                entry.ttlSeconds(), TimeUnit.NANOSECONDS.toMillis(keyLivesAtLeastUntil - coreDeadline));
        assertThat(keyLivesAtLeastUntil - coreDeadline)
                .as("how long (ns) the key surely outlives the core's deadline (server ttl %d s)", entry.ttlSeconds())
                .isGreaterThanOrEqualTo(0);
        assertThat(store.release(name, "owner-b")).isTrue();
    }

    /**
     * M2: A's token came from a counter seeded by a client whose clock runs 60 s ahead; the counter is evicted
     * while A holds. B's poll re-creates it from B's clock, lower than A's token, and sees A's token. After A
     * releases, B's token must still exceed A's.
     */
    @Test
    @Timeout(60)
    void aCounterLostToEvictionNeverIssuesATokenBelowOneTheAcquirerSaw() throws Exception {
        String name = "reseed/" + run;
        Duration lease = Duration.ofSeconds(10);
        LockStore a = store();
        LockStore b = store();
        Instant now = Instant.now();
        String skewed = Long.toString(now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000 + 60_000_000L);
        assertThat(server.command("set adopt:token:" + name + " 0 0 " + skewed.length() + "\r\n" + skewed)).isEqualTo("STORED");
        Attempt held = a.tryAcquire(name, "owner-a", "test", lease);
        assertThat(held.acquired()).isTrue();
        assertThat(server.command("delete adopt:token:" + name)).as("the counter evicted").isEqualTo("DELETED");
        assertThat(b.tryAcquire(name, "owner-b", "test", lease).acquired()).as("B's poll while A holds").isFalse();
        assertThat(a.release(name, "owner-a")).isTrue();
        Attempt next = b.tryAcquire(name, "owner-b", "test", lease);
        assertThat(next.acquired()).isTrue();
        System.out.printf("reseed: A's token %d, B's token %d%n", held.fencingToken(), next.fencingToken());
        assertThat(next.fencingToken()).as("B's token, after it saw A's %d", held.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(b.release(name, "owner-b")).isTrue();
    }
}
