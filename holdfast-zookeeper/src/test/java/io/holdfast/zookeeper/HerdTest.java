package io.holdfast.zookeeper;

import io.holdfast.Hold;
import io.holdfast.LockInfo;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No herd: 32 waiters, each its own client (its own ZooKeeper session), queue on one lock. Every
 * release sends exactly one watch event, to the next waiter in the queue, which then holds the lock;
 * the other waiters' sessions receive nothing and their stores run no wake-up. (The next waiter's own
 * backstop poll may now and then find the lock free just before the event arrives; then the event
 * still comes, but finds nobody waiting.)
 */
class HerdTest {
    private static final int WAITERS = 32;
    private static TestingServer server;

    @BeforeAll
    static void start() throws Exception {
        server = TestEnsembles.single();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void eachReleaseWakesExactlyOneWaiterTheNextInLine() throws Exception {
        String uri = "zookeeper://127.0.0.1:" + server.getPort() + "/herd";
        String name = "herd/" + UUID.randomUUID();
        List<TrackedClient> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(WAITERS);
        try {
            TrackedClient first = TrackedClient.connect(uri);
            clients.add(first);
            Hold initial = first.holdfast().lock(name).acquire(Duration.ofSeconds(10));
            for (int i = 0; i < WAITERS; i++) {
                clients.add(TrackedClient.connect(uri));
            }

            // Each waiter: acquire, report, hold until told to release.
            BlockingQueue<Integer> acquired = new LinkedBlockingQueue<>();
            List<CountDownLatch> mayRelease = new ArrayList<>();
            List<CompletableFuture<Long>> tokens = new ArrayList<>();
            for (int i = 1; i <= WAITERS; i++) {
                int index = i;
                CountDownLatch release = new CountDownLatch(1);
                mayRelease.add(release);
                tokens.add(CompletableFuture.supplyAsync(() -> {
                    try (Hold hold = clients.get(index).holdfast().lock(name).acquire(Duration.ofSeconds(200))) {
                        acquired.add(index);
                        if (!release.await(200, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("waiter " + index + " was never told to release");
                        }
                        return hold.fencingToken();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }, threads));
            }
            ZooKeeper observer = first.store().sessionFor(Duration.ofSeconds(30)).handleForTests();
            String dir = LockNodes.dir("/herd", name);
            awaitQueueLength(observer, dir, WAITERS + 1);
            List<String> queueOrder = new ArrayList<>();
            for (String node : LockNodes.queue(observer.getChildren(dir, false))) {
                queueOrder.add(LockNodes.owner(node));
            }

            long[] before = watchEvents(clients);
            long[] wakeUpsBefore = wakeUps(clients);
            initial.close();
            int wokenTotal = 0;
            for (int step = 1; step <= WAITERS; step++) {
                Integer holder = acquired.poll(60, TimeUnit.SECONDS);
                assertThat(holder).as("a waiter acquired after release number %d", step).isNotNull();
                Thread.sleep(200); // room for any stray wake-up to arrive before counting
                long[] after = watchEvents(clients);
                long[] wakeUpsAfter = wakeUps(clients);
                Set<Integer> notified = new HashSet<>();
                Set<Integer> woken = new HashSet<>();
                for (int i = 0; i < clients.size(); i++) {
                    if (after[i] != before[i]) {
                        notified.add(i);
                        assertThat(after[i] - before[i]).as("watch events client %d received for release number %d", i, step).isEqualTo(1);
                    }
                    if (wakeUpsAfter[i] != wakeUpsBefore[i]) {
                        woken.add(i);
                        wokenTotal++;
                    }
                }
                assertThat(notified).as("clients notified of release number %d", step).containsExactly(holder);
                assertThat(woken).as("clients woken by release number %d", step).isSubsetOf(holder);
                wakeUpsBefore = wakeUpsAfter;
                LockInfo info = first.holdfast().admin().status(name).orElseThrow();
                assertThat(info.ownerId()).as("holder after release number %d is the next in the queue", step)
                        .isEqualTo(queueOrder.get(step));
                before = after;
                mayRelease.get(holder - 1).countDown();
            }
            System.out.println("herd: " + WAITERS + " releases, " + WAITERS + " watch events, " + wokenTotal
                    + " wake-ups (the rest were beaten by the waiter's own poll)");
            List<Long> handedOut = new ArrayList<>();
            for (CompletableFuture<Long> t : tokens) {
                handedOut.add(t.get(30, TimeUnit.SECONDS));
            }
            assertThat(handedOut).doesNotHaveDuplicates();
            Thread.sleep(200);
            assertThat(watchEvents(clients)).as("watch events after the last release (it has no one to notify)").containsExactly(before);
        } finally {
            threads.shutdownNow();
            for (TrackedClient c : clients) {
                c.close();
            }
        }
    }

    private static long[] watchEvents(List<TrackedClient> clients) {
        long[] counts = new long[clients.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = clients.get(i).store().watchEvents.sum();
        }
        return counts;
    }

    private static long[] wakeUps(List<TrackedClient> clients) {
        long[] counts = new long[clients.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = clients.get(i).store().wakeUps.sum();
        }
        return counts;
    }

    private static void awaitQueueLength(ZooKeeper zk, String dir, int length) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int seen = -1;
        while (System.nanoTime() < deadline) {
            try {
                seen = LockNodes.queue(zk.getChildren(dir, false)).size();
            } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
                seen = 0;
            }
            if (seen == length) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("queue of " + dir + " has " + seen + " nodes, expected " + length);
    }
}
