package io.holdfast.redis;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The herd: 16 clients (each its own {@link Holdfast}, as 16 processes would be) wait on one held lock; the
 * holder releases and each waiter, once it has the lock, holds it briefly and releases it, until all 16
 * had it. Counts the script calls of those 16 hand-offs on the server ({@code INFO commandstats}) and by
 * cause in the clients ({@link AttemptCounters}), and checks that a release wakes one client only: each
 * hand-off costs its release plus the woken client's one attempt, whatever the number of waiters. The
 * waiters' safety-net polls (one per waiter per maxPoll, unrelated to releases) are counted apart.
 */
class HerdTest {
    private static final int WAITERS = 16;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void sixteenWaitersOnStandaloneCostTwoScriptCallsPerHandOff() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            herd("standalone", "redis://127.0.0.1:" + server.port + "?prefix=herd:", List.of(server));
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void sixteenWaitersOnClusterCostTwoScriptCallsPerHandOff() throws Exception {
        try (RedisClusterServers cluster = new RedisClusterServers(3)) {
            herd("cluster", "redis-cluster://" + cluster.seeds() + "?prefix=herd:", cluster.masters);
        }
    }

    private static void herd(String where, String uri, List<RedisServer> servers) throws Exception {
        String name = "herd/lock";
        List<Holdfast> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(WAITERS);
        try {
            Holdfast first = Holdfast.connect(uri);
            clients.add(first);
            Hold holding = first.lock(name).acquire(Duration.ofSeconds(10));

            AtomicInteger acquired = new AtomicInteger();
            AtomicReference<long[]> endCounters = new AtomicReference<>();
            AtomicReference<Long> endServerCalls = new AtomicReference<>();
            List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
            List<Future<?>> waiters = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                Holdfast client = Holdfast.connect(uri);
                clients.add(client);
                waiters.add(threads.submit(() -> {
                    try (Hold hold = client.lock(name).acquire(Duration.ofSeconds(120))) {
                        tokens.add(hold.fencingToken());
                        if (acquired.incrementAndGet() == WAITERS) {
                            // The last hand-off is complete; its own release hands to nobody.
                            endCounters.set(AttemptCounters.snapshot());
                            endServerCalls.set(scriptCalls(servers));
                        }
                        Thread.sleep(5);
                    }
                    return null;
                }));
            }
            RedisServer owner = awaitQueued(servers, "herd:{" + name + "}", WAITERS);
            // Let the waiters' polls back off to their cap, as in a herd that has waited a while.
            Thread.sleep(3_000);

            long[] start = AttemptCounters.snapshot();
            long startServerCalls = scriptCalls(servers);
            holding.close();
            for (Future<?> w : waiters) {
                w.get(120, TimeUnit.SECONDS);
            }
            long[] end = endCounters.get();
            long serverCalls = endServerCalls.get() - startServerCalls;
            long firstTries = end[0] - start[0];
            long woken = end[1] - start[1];
            long polled = end[2] - start[2];
            long delivered = end[3] - start[3];
            long acquires = end[4] - start[4];
            long releases = end[5] - start[5];
            long renewals = end[6] - start[6];
            long reloads = end[7] - start[7];
            double perHandOff = (double) (releases + woken) / WAITERS;
            System.out.printf("herd on %s (lock on %s): %d hand-offs, %d script calls counted by the server = %d releases + %d acquires "
                            + "(%d after a wake-up, %d polls, %d first tries) + %d renewals + %d NOSCRIPT re-sends; %d wake-ups delivered; "
                            + "release + woken attempt per hand-off: %.2f; all script calls per hand-off: %.2f%n",
                    where, owner.address(), WAITERS, serverCalls, releases, acquires, woken, polled, firstTries, renewals, reloads, delivered,
                    perHandOff, (double) serverCalls / WAITERS);

            assertThat(tokens).hasSize(WAITERS).doesNotHaveDuplicates();
            assertThat(serverCalls).as("script calls the server counted vs calls the clients sent")
                    .isEqualTo(releases + acquires + renewals + reloads);
            assertThat(releases).as("releases in the 16 hand-offs (the first holder's and 15 waiters')").isEqualTo(WAITERS);
            assertThat(firstTries).as("first tries during the hand-offs (every waiter was already queued)").isZero();
            assertThat(delivered).as("wake-ups delivered: at most one client per release").isLessThanOrEqualTo(releases);
            assertThat(woken).as("attempts made after a wake-up").isLessThanOrEqualTo(delivered).isGreaterThanOrEqualTo(WAITERS - polled);
            assertThat(perHandOff).as("release + woken attempt per hand-off").isLessThanOrEqualTo(2.0);
        } finally {
            threads.shutdownNow();
            for (Holdfast c : clients) {
                c.close();
            }
        }
    }

    /** Script calls (EVALSHA and EVAL) every server counted so far. */
    private static long scriptCalls(List<RedisServer> servers) {
        long n = 0;
        for (RedisServer s : servers) {
            n += s.commandCalls("evalsha") + s.commandCalls("eval");
        }
        return n;
    }

    /** Waits until {@code count} clients are queued for the lock and subscribed to their wake channels; returns its server. */
    private static RedisServer awaitQueued(List<RedisServer> servers, String base, int count) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            for (RedisServer s : servers) {
                Object queued = s.call("ZCARD", base + ":queue");
                Object channels = s.call("PUBSUB", "SHARDCHANNELS", base + ":wake:*");
                if (queued instanceof Long q && q == count && channels instanceof List<?> c && c.size() == count) {
                    return s;
                }
            }
            RedisServer.sleep(20);
        }
        throw new AssertionError("the " + count + " waiters did not queue and subscribe within 60s");
    }
}
