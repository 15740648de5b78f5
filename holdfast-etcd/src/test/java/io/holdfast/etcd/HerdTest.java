package io.holdfast.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No thundering herd: 32 clients (each its own connection, like 32 processes) wait on one lock; each
 * release wakes only the waiter whose key comes next. The wake-ups are counted by etcd itself (its
 * {@code etcd_debugging_mvcc_events_total} counter of watch events sent to clients), so the count
 * includes every watch any client had open, not just the ones this code meant to open.
 */
class HerdTest {
    private static final String PREFIX = "herd-" + UUID.randomUUID().toString().substring(0, 8);
    private static final int WAITERS = 32;
    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void thirtyTwoWaitersGetOneWakeUpPerReleaseInArrivalOrder() throws Exception {
        String uri = etcd.uri(PREFIX, null);
        String name = "herd/one-lock";
        EtcdCluster.Member member = etcd.members().get(0);
        List<Holdfast> clients = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(WAITERS);
        try (Client raw = Client.builder().endpoints(member.clientUrl()).build()) {
            Holdfast first = Holdfast.connect(uri);
            clients.add(first);
            for (int i = 0; i < WAITERS; i++) {
                clients.add(Holdfast.connect(uri));
            }
            Hold initial = first.lock(name).acquire(Duration.ofSeconds(30));

            List<Integer> order = Collections.synchronizedList(new ArrayList<>());
            List<Future<?>> waiters = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                int index = i;
                Holdfast client = clients.get(i + 1);
                waiters.add(threads.submit(() -> {
                    try (Hold hold = client.lock(name).acquire(Duration.ofSeconds(180))) {
                        order.add(index);
                        Thread.sleep(10);
                    }
                    return null;
                }));
                // The next waiter starts once this one is queued at etcd, so arrival order is known.
                awaitKeys(raw, name, i + 2);
            }
            // Let the waiters' fallback polls back off to their cap (2 s) before counting.
            Thread.sleep(4_000);

            double eventsBefore = EtcdCluster.metric(member, "etcd_debugging_mvcc_events_total");
            double txnsBefore = EtcdCluster.metric(member, "grpc_server_started_total", "grpc_method=\"Txn\"");
            double rangesBefore = EtcdCluster.metric(member, "grpc_server_started_total", "grpc_method=\"Range\"");
            double proposalsBefore = EtcdCluster.metric(member, "etcd_server_proposals_committed_total");
            long start = System.nanoTime();
            initial.close();
            for (Future<?> w : waiters) {
                w.get(180, TimeUnit.SECONDS);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            Thread.sleep(300); // late events, if any, are counted too
            double events = EtcdCluster.metric(member, "etcd_debugging_mvcc_events_total") - eventsBefore;
            double txns = EtcdCluster.metric(member, "grpc_server_started_total", "grpc_method=\"Txn\"") - txnsBefore;
            double ranges = EtcdCluster.metric(member, "grpc_server_started_total", "grpc_method=\"Range\"") - rangesBefore;
            double proposals = EtcdCluster.metric(member, "etcd_server_proposals_committed_total") - proposalsBefore;

            int releases = WAITERS + 1;
            System.out.printf("herd: %d waiters, %d releases in %.2f s: %.0f watch events sent by etcd (%.2f per release), "
                    + "%.0f transactions (%.2f per hand-off), %.0f Raft proposals (%.2f per hand-off), %.0f plain reads%n", WAITERS,
                    releases, seconds, events, events / releases, txns, txns / WAITERS, proposals, proposals / WAITERS, ranges);
            assertThat(order).as("acquisition order (arrival order is 0..31)").containsExactlyElementsOf(
                    IntStream.range(0, WAITERS).boxed().toList());
            assertThat(events).as("watch events etcd sent during %d releases (a herd sends up to %d)", releases,
                    WAITERS * (WAITERS + 1) / 2).isLessThanOrEqualTo(releases);
            assertThat(events).as("watch events: the waiters were woken by watches, not only by polls")
                    .isGreaterThanOrEqualTo(WAITERS / 2.0);
        } finally {
            threads.shutdownNow();
            for (Holdfast c : clients) {
                c.close();
            }
        }
    }

    private static void awaitKeys(Client raw, String name, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long seen = -1;
        while (System.nanoTime() < deadline) {
            seen = raw.getKVClient().get(EtcdKeys.utf8(PREFIX + "/" + name + "!"),
                    GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(5, TimeUnit.SECONDS).getCount();
            if (seen >= count) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("expected " + count + " keys under the lock, saw " + seen);
    }
}
