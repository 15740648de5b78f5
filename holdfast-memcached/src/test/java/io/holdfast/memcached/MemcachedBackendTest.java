package io.holdfast.memcached;

import io.holdfast.DistributedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.LockStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What is particular to Memcached, on a real {@code memcached} this class starts (and restarts): keys that
 * vanish (restart, eviction) are reported lost by the next renewal; tokens stay increasing when the counter
 * is lost; whole-second expiry keeps the key at least the lease; the lease floor is refused clearly.
 */
class MemcachedBackendTest {
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

    private Holdfast client() {
        Holdfast h = Holdfast.connect(server.uri("prefix=backend:"));
        toClose.push(h);
        return h;
    }

    private LockStore store() {
        LockStore s = new MemcachedLockStoreProvider().open(server.uri("prefix=backend:"));
        toClose.push(s);
        return s;
    }

    private String name(String what) {
        return "backend/" + what + "/" + run;
    }

    /** Memcached's expiry is in whole seconds: a shorter lease is refused, saying what is allowed. */
    @Test
    @Timeout(30)
    void leasesShorterThanOneSecondAreRefused() {
        Holdfast holdfast = client();
        assertThatThrownBy(() -> holdfast.lock(name("short"), Duration.ofMillis(999), true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("memcached").hasMessageContaining("allowed: 1s");
        assertThat(holdfast.lock(name("short"), Duration.ofSeconds(1), true).name()).isEqualTo(name("short"));
        assertThat(MemcachedLockStore.expirySeconds(Duration.ofMillis(1000))).isEqualTo(3);
        assertThat(MemcachedLockStore.expirySeconds(Duration.ofMillis(1001))).isEqualTo(4);
        assertThat(MemcachedLockStore.expirySeconds(Duration.ofSeconds(30))).isEqualTo(32);
    }

    /**
     * Whole-second rounding, both ways: for holds of 1s and 1.5s that are never renewed, taken at scattered
     * moments within the server's second, the key outlives the lease (so it outlives the holder's own
     * deadline) and is gone by ceil(lease) + 2 s (plus slack for polling).
     */
    @Test
    @Timeout(60)
    void theServerKeepsAKeyAtLeastTheLeaseAndAtMostTheRoundedExpiry() throws Exception {
        Holdfast holdfast = client();
        LockStore inspector = store();
        List<Duration> leases = List.of(Duration.ofSeconds(1), Duration.ofMillis(1500));
        List<String> names = new ArrayList<>();
        List<Long> acquiredAt = new ArrayList<>();
        List<Duration> leaseOf = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Thread.sleep(ThreadLocalRandom.current().nextInt(50, 300)); // scatter over the server's one-second ticks
            Duration lease = leases.get(i % 2);
            String name = name("rounding-" + i);
            long sent = System.nanoTime();
            holdfast.lock(name, lease, false).acquire(Duration.ofSeconds(5));
            names.add(name);
            acquiredAt.add(sent);
            leaseOf.add(lease);
        }
        long[] heldAfterMs = new long[names.size()]; // the key existed at least this long: a lower bound on its life
        long[] goneAfterMs = new long[names.size()]; // and was gone by then: an upper bound
        int left = names.size();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (left > 0 && System.nanoTime() < deadline) {
            for (int i = 0; i < names.size(); i++) {
                if (goneAfterMs[i] == 0) {
                    long asked = System.nanoTime();
                    Optional<LockInfo> info = inspector.inspect(names.get(i));
                    long sinceAcquire = TimeUnit.NANOSECONDS.toMillis(asked - acquiredAt.get(i));
                    if (info.isPresent() && info.get().held()) {
                        heldAfterMs[i] = sinceAcquire;
                    } else {
                        goneAfterMs[i] = sinceAcquire;
                        left--;
                    }
                }
            }
            Thread.sleep(5);
        }
        assertThat(left).as("locks still held 30s later").isZero();
        for (int i = 0; i < names.size(); i++) {
            System.out.printf("rounding: lease %d ms, key seen held at %d ms, gone by %d ms%n", leaseOf.get(i).toMillis(),
                    heldAfterMs[i], goneAfterMs[i]);
        }
        for (int i = 0; i < names.size(); i++) {
            long leaseMs = leaseOf.get(i).toMillis();
            long maxMs = MemcachedLockStore.expirySeconds(leaseOf.get(i)) * 1000L + 500;
            assertThat(heldAfterMs[i]).as("ms the server kept the key of a %d ms lease (at least)", leaseMs)
                    .isGreaterThanOrEqualTo(leaseMs);
            assertThat(goneAfterMs[i]).as("ms until the server freed the key of a %d ms lease (at most)", leaseMs)
                    .isLessThanOrEqualTo(maxMs);
        }
    }

    /**
     * A restart loses every key: the holder's next renewal finds its key gone and reports the hold lost
     * within one renewal period (lease/3) plus slack; the next holder's token is still greater, because a
     * lost counter is seeded from the clock (this client has never seen the name, so no memory helps).
     */
    @Test
    @Timeout(120)
    void aRestartIsReportedLostByTheNextRenewalAndTokensKeepIncreasing() throws Exception {
        String name = name("restart");
        Duration lease = Duration.ofSeconds(6);
        Holdfast holder = client();
        Hold hold = holder.lock(name, lease, true).acquire(Duration.ofSeconds(10));
        CountDownLatch lost = new CountDownLatch(1);
        AtomicLong lostAt = new AtomicLong();
        AtomicReference<String> reason = new AtomicReference<>();
        hold.onLost((h, why) -> {
            lostAt.set(System.nanoTime());
            reason.set(why);
            lost.countDown();
        });
        Thread.sleep(lease.toMillis() / 3 + 500); // at least one renewal went through first
        assertThat(hold.isValid()).isTrue();

        long restartedAt = System.nanoTime();
        server.restart();
        long budgetMs = lease.toMillis() / 3 + 2_000;
        assertThat(lost.await(30, TimeUnit.SECONDS)).as("hold reported lost after the restart").isTrue();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(lostAt.get() - restartedAt);
        System.out.printf("restart: hold with a %d ms lease reported lost %d ms after the restart began: %s%n", lease.toMillis(),
                tookMs, reason.get());
        assertThat(tookMs).as("ms from the restart to the loss report (renewal period %d ms + 2 s slack)", lease.toMillis() / 3)
                .isLessThanOrEqualTo(budgetMs);
        assertThat(reason.get()).as("why the hold was lost").contains("no longer has this hold");
        assertThat(hold.state()).isEqualTo(Hold.State.LOST);

        Holdfast fresh = client();
        try (Hold next = fresh.lock(name).acquire(Duration.ofSeconds(10))) {
            assertThat(next.fencingToken()).as("token after the restart").isGreaterThan(hold.fencingToken());
        }
    }

    /**
     * An evicted lock key (deleted behind the store's back, as LRU eviction does) is reported lost by the next
     * renewal; an evicted counter is re-created above every token issued before.
     */
    @Test
    @Timeout(60)
    void anEvictedLockIsReportedLostAndAnEvictedCounterRestartsAboveOldTokens() throws Exception {
        String name = name("evicted");
        Duration lease = Duration.ofSeconds(3);
        Holdfast holder = client();
        Hold hold = holder.lock(name, lease, true).acquire(Duration.ofSeconds(10));
        CountDownLatch lost = new CountDownLatch(1);
        hold.onLost((h, why) -> lost.countDown());

        assertThat(server.command("delete backend:lock:" + name)).isEqualTo("DELETED");
        assertThat(lost.await(lease.toMillis() / 3 + 2_000, TimeUnit.MILLISECONDS))
                .as("loss reported within a renewal period plus slack after the key vanished").isTrue();
        assertThatThrownBy(hold::close).isInstanceOf(io.holdfast.LockLostException.class);

        long before;
        try (Hold h = holder.lock(name).acquire(Duration.ofSeconds(10))) {
            before = h.fencingToken();
        }
        assertThat(server.command("delete backend:token:" + name)).isEqualTo("DELETED");
        try (Hold h = client().lock(name).acquire(Duration.ofSeconds(10))) { // a client with no memory of the name
            assertThat(h.fencingToken()).as("token from a re-created counter").isGreaterThan(before);
        }
        assertThat(server.command("delete backend:token:" + name)).isEqualTo("DELETED");
        try (Hold h = holder.lock(name).acquire(Duration.ofSeconds(10))) {
            assertThat(h.fencingToken()).as("token from a counter re-created by a client that saw the name").isGreaterThan(before);
        }
    }

    /**
     * An acquisition whose token write was lost (its key says token 0) is completed by the owner's retry with
     * a fresh token; another owner stays out; release never deletes a key that names someone else.
     */
    @Test
    @Timeout(60)
    void aRetryCompletesAnAcquisitionWhoseTokenWriteWasLost() throws Exception {
        String name = name("pending");
        LockStore store = store();
        Attempt first = store.tryAcquire(name, "owner-a", "test", Duration.ofSeconds(30));
        assertThat(first.acquired()).isTrue();
        assertThat(store.release(name, "owner-a")).isTrue();

        // What an add that landed without its token write leaves behind.
        String pending = new LockValue(0, 30_000, "owner-b", "test").encode();
        assertThat(server.command("add backend:lock:" + name + " 0 30 " + pending.length() + "\r\n" + pending)).isEqualTo("STORED");
        assertThat(store.inspect(name)).hasValueSatisfying(i -> {
            assertThat(i.held()).isTrue();
            assertThat(i.ownerId()).isEqualTo("owner-b");
        });
        assertThat(store.tryAcquire(name, "owner-c", "test", Duration.ofSeconds(30)).acquired())
                .as("another owner's attempt on a pending lock").isFalse();
        assertThat(store.release(name, "owner-c")).as("release by an owner the key does not name").isFalse();

        Attempt retry = store.tryAcquire(name, "owner-b", "test", Duration.ofSeconds(30));
        assertThat(retry.acquired()).isTrue();
        assertThat(retry.fencingToken()).isGreaterThan(first.fencingToken());
        Attempt again = store.tryAcquire(name, "owner-b", "test", Duration.ofSeconds(30));
        assertThat(again.fencingToken()).as("token of a second retry").isEqualTo(retry.fencingToken());
        assertThat(store.inspect(name)).hasValueSatisfying(i -> assertThat(i.fencingToken()).isEqualTo(retry.fencingToken()));
        assertThat(store.release(name, "owner-b")).isTrue();
    }

    /**
     * List finds every held lock while the keys move between Memcached's LRU segments (status reads bump
     * them): the crawler walks the hash table, not the LRUs, which would miss moving keys.
     */
    @Test
    @Timeout(120)
    void listFindsEveryHeldLockWhileKeysAreBeingRead() throws Exception {
        String prefix = name("list") + "/";
        Holdfast holdfast = client();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String n = prefix + String.format("%02d", i);
            holdfast.lock(n).acquire(Duration.ofSeconds(5));
            names.add(n);
        }
        LockStore reader = store();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread churn = new Thread(() -> {
            while (!stop.get()) {
                for (String n : names) {
                    reader.inspect(n);
                }
            }
        }, "status-churn");
        churn.setDaemon(true);
        churn.start();
        try {
            LockStore lister = store();
            for (int round = 0; round < 30; round++) {
                assertThat(lister.list(prefix, 1000)).extracting(LockInfo::name).as("list, round %d", round).isEqualTo(names);
            }
        } finally {
            stop.set(true);
            churn.join(10_000);
        }
    }

    /** A key that another program stored under the lock's name counts as held and is never deleted by release. */
    @Test
    @Timeout(30)
    void aForeignValueCountsAsHeld() throws IOException {
        String name = name("foreign");
        LockStore store = store();
        assertThat(server.command("set backend:lock:" + name + " 0 30 5\r\nhello")).isEqualTo("STORED");
        assertThat(store.tryAcquire(name, "owner", "test", Duration.ofSeconds(5)).acquired()).isFalse();
        assertThat(store.release(name, "owner")).isFalse();
        assertThat(store.inspect(name)).hasValueSatisfying(i -> {
            assertThat(i.held()).isTrue();
            assertThat(i.ownerId()).isEqualTo(LockValue.UNREADABLE);
        });
        assertThat(store.forceRelease(name)).isTrue();
        assertThat(store.tryAcquire(name, "owner", "test", Duration.ofSeconds(5)).acquired()).isTrue();
        assertThat(store.release(name, "owner")).isTrue();
    }

    /** Uncontended acquire is two round trips (add+incr+gets, then the token's cas); release two (gets, cas delete). */
    @Test
    @Timeout(30)
    void acquireAndReleaseRoundTripsAsDocumented() throws IOException {
        String name = name("round-trips");
        LockStore store = store();
        store.tryAcquire(name, "warm-up", "test", Duration.ofSeconds(5));
        store.release(name, "warm-up");
        long getsBefore = stat("cmd_get");
        long casBefore = stat("cas_hits");
        long incrBefore = stat("incr_misses") + stat("incr_hits");
        long deleteBefore = stat("delete_hits");
        DistributedLock lock = client().lock(name);
        lock.tryAcquire().orElseThrow().close();
        assertThat(stat("incr_misses") + stat("incr_hits") - incrBefore).as("incr per acquire").isEqualTo(1);
        assertThat(stat("cmd_get") - getsBefore).as("gets per acquire+release").isEqualTo(2);
        assertThat(stat("cas_hits") - casBefore).as("cas per acquire").isEqualTo(1);
        assertThat(stat("delete_hits") - deleteBefore).as("deletes per release").isEqualTo(1);
    }

    private static long stat(String name) throws IOException {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port)) {
            s.getOutputStream().write("stats\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(),
                    java.nio.charset.StandardCharsets.US_ASCII));
            for (String line = in.readLine(); line != null && !line.equals("END"); line = in.readLine()) {
                String[] parts = line.split(" ");
                if (parts.length == 3 && parts[1].equals(name)) {
                    return Long.parseLong(parts[2]);
                }
            }
        }
        throw new AssertionError("no stat " + name);
    }
}
