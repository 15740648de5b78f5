package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.holdfast.DistributedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.testkit.CountingStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the etcd server does for an uncontended acquire + release and for a hand-off between two clients, counted by
 * the server itself ({@code /metrics} of a private member, read before and after): gRPC requests by method, Raft
 * proposals, watch streams opened, watch events sent, watchers left on etcd's slow catch-up path. Counts, not
 * times, so the result is the same on a loaded machine. jetcd's {@code Lock} service (the lock inside the etcd
 * server) runs the same shapes for comparison: both need the same two proposals, put and delete.
 *
 * <p>The Holdfast clients use a lease of one day, so that no keep-alive of their session lease falls due during the
 * test: an acquire sends one only if the last was sent more than a twentieth of the lease earlier (1.5 s for the
 * default 30 s), which the count must not depend on.
 */
class EtcdRequestCountTest {
    private static final String PREFIX = "count-" + UUID.randomUUID().toString().substring(0, 8);
    /** Generous: the counts do not depend on time, and a loaded machine may be slow to answer. */
    private static final String TIMEOUTS = "connectTimeout=60s&requestTimeout=60s";
    private static final Duration LEASE = Duration.ofDays(1);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int OPERATIONS = 200;
    private static final int HAND_OFFS = 50;
    private static final int WARM_UP = 5;
    private static EtcdCluster etcd;
    private static EtcdCluster.Member member;

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(1);
        member = etcd.members().get(0);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void anUncontendedAcquireAndReleaseIsTwoTransactionsAndTwoProposals() throws Exception {
        CountingStore store = new CountingStore(new EtcdLockStore(EtcdUri.parse(etcd.uri(PREFIX, TIMEOUTS))));
        EtcdMetrics before;
        EtcdMetrics after;
        try (Holdfast holdfast = Holdfast.builder(store).defaultLease(LEASE).connect()) {
            DistributedLock lock = holdfast.lock("uncontended");
            for (int i = 0; i < WARM_UP; i++) {
                lock.acquire(WAIT).close();
            }
            int attempts = store.attempts();
            int releases = store.releases();
            before = EtcdMetrics.read(member);
            for (int i = 0; i < OPERATIONS; i++) {
                lock.acquire(WAIT).close();
            }
            after = EtcdMetrics.read(member);
            assertThat(store.attempts() - attempts).as("store attempts").isEqualTo(OPERATIONS);
            assertThat(store.releases() - releases).as("store releases").isEqualTo(OPERATIONS);
        }
        Costs jetcd = jetcdUncontended();
        Costs holdfast = new Costs(before, after, OPERATIONS);
        System.out.printf("per uncontended acquire + release, %d of each:%n  Holdfast %s%n  jetcd    %s%n", OPERATIONS, holdfast, jetcd);

        assertThat(holdfast.per("Txn")).as("transactions: the acquire's and the release's").isEqualTo(2);
        assertThat(holdfast.requests()).as("requests of any kind (no read, keep-alive, lease grant or watch)").isEqualTo(2);
        assertThat(holdfast.proposals()).as("Raft proposals: the put and the delete").isEqualTo(2);
        assertThat(holdfast.requests()).as("requests, against jetcd's Lock + Unlock").isLessThanOrEqualTo(jetcd.requests());
        assertThat(holdfast.proposals()).as("proposals, against jetcd's").isLessThanOrEqualTo(jetcd.proposals());
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aHandOffIsOneWatchEventOnASyncedWatchAndTwoProposals() throws Exception {
        String name = "hand-off";
        CountingStore storeA = new CountingStore(new EtcdLockStore(EtcdUri.parse(etcd.uri(PREFIX, TIMEOUTS))));
        CountingStore storeB = new CountingStore(new EtcdLockStore(EtcdUri.parse(etcd.uri(PREFIX, TIMEOUTS))));
        PingPong run;
        try (Holdfast a = Holdfast.builder(storeA).defaultLease(LEASE).connect();
             Holdfast b = Holdfast.builder(storeB).defaultLease(LEASE).connect();
             Client raw = Client.builder().endpoints(member.clientUrl()).build()) {
            Holdfast[] clients = {a, b};
            String keys = PREFIX + "/" + name + "!";
            run = new PingPong(raw, keys, storeA, storeB);
            Hold held = a.lock(name).acquire(WAIT);
            for (int i = 0; i < WARM_UP + HAND_OFFS; i++) {
                if (i == WARM_UP) {
                    run.start();
                }
                awaitWatchers(0); // the last waiter's watch is gone
                CompletableFuture<Hold> next = clients[(i + 1) % 2].lock(name).acquireAsync(WAIT);
                run.awaitQueuedAndWatching();
                held.close();
                held = next.get(30, TimeUnit.SECONDS);
            }
            run.stop();
            held.close();
        }
        PingPong jetcdRun = jetcdHandOffs();
        Costs holdfast = run.costs();
        Costs jetcd = jetcdRun.costs();
        int storeCalls = run.attempts() + run.releases();
        System.out.printf("per hand-off, %d hand-offs (probe reads not counted):%n  Holdfast %s; %.2f store calls "
                        + "(%d fallback polls); unsynced watchers seen %d%n  jetcd    %s; unsynced watchers seen %d%n",
                HAND_OFFS, holdfast, (double) storeCalls / HAND_OFFS, run.attempts() - 2 * HAND_OFFS, run.slowWatchersSeen,
                jetcd, jetcdRun.slowWatchersSeen);

        assertThat(holdfast.proposals()).as("Raft proposals: the waiter's put and the holder's delete").isEqualTo(2);
        assertThat(holdfast.per("Watch")).as("watch streams opened: the waiter's, on its predecessor").isEqualTo(1);
        assertThat(holdfast.events()).as("watch events sent: the one deletion, to the one waiter").isEqualTo(1);
        assertThat(run.slowWatchersSeen).as("watchers etcd had on its 100 ms catch-up path, sampled before each release")
                .isZero();
        assertThat(holdfast.per("Range") + holdfast.per("LeaseKeepAlive") + holdfast.per("LeaseGrant"))
                .as("plain reads, keep-alives, lease grants").isZero();
        assertThat(run.releases()).as("store releases").isEqualTo(HAND_OFFS);
        assertThat(run.attempts()).as("store attempts: the waiter queues, then the watch wakes it").isGreaterThanOrEqualTo(2 * HAND_OFFS);
        assertThat(holdfast.total("Txn")).as("one transaction per store call").isEqualTo(storeCalls);
        assertThat(holdfast.proposals()).as("proposals, against jetcd's").isLessThanOrEqualTo(jetcd.proposals());
    }

    /**
     * Two waits of one client taking turns: the release reads, in its own transaction, who holds the lock next, and
     * that waiter, of the same client, takes it from that read: no read of its own, no wait for its watch's event.
     * Before: three transactions per hand-off (the woken waiter's read-only one too).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aHandOffWithinOneClientIsTheWaitersQueueingAndTheReleaseOnly() throws Exception {
        String name = "hand-off-within";
        CountingStore store = new CountingStore(new EtcdLockStore(EtcdUri.parse(etcd.uri(PREFIX, TIMEOUTS))));
        PingPong run;
        try (Holdfast h = Holdfast.builder(store).defaultLease(LEASE).connect();
             Client raw = Client.builder().endpoints(member.clientUrl()).build()) {
            run = new PingPong(raw, PREFIX + "/" + name + "!", store);
            Hold held = h.lock(name).acquire(WAIT);
            for (int i = 0; i < WARM_UP + HAND_OFFS; i++) {
                if (i == WARM_UP) {
                    run.start();
                }
                awaitWatchers(0); // the last waiter's watch is gone
                CompletableFuture<Hold> next = h.lock(name).acquireAsync(WAIT);
                run.awaitQueuedAndWatching();
                long token = held.fencingToken();
                held.close();
                held = next.get(30, TimeUnit.SECONDS);
                assertThat(held.fencingToken()).as("the next hold's token").isGreaterThan(token);
                assertThat(held.isValid()).as("the next hold is valid").isTrue();
            }
            run.stop();
            held.close();
        }
        Costs holdfast = run.costs();
        System.out.printf("per hand-off within one client, %d hand-offs (probe reads not counted):%n  Holdfast %s; %d attempts%n",
                HAND_OFFS, holdfast, run.attempts());

        assertThat(holdfast.proposals()).as("Raft proposals: the waiter's put and the holder's delete").isEqualTo(2);
        assertThat(run.attempts()).as("store attempts: the waiter queues, then takes the lock").isGreaterThanOrEqualTo(2 * HAND_OFFS);
        assertThat(holdfast.total("Txn")).as("transactions: one per store call, but none for the attempt that takes a lock "
                + "handed on").isEqualTo(run.attempts() + run.releases() - HAND_OFFS);
    }

    // ------------------------------------------------------------------------------------------ jetcd

    private static Costs jetcdUncontended() throws Exception {
        try (Client c = Client.builder().endpoints(member.clientUrl()).build()) {
            long lease = c.getLeaseClient().grant(30).get(5, TimeUnit.SECONDS).getID();
            ByteSequence name = EtcdKeys.utf8(PREFIX + "-jetcd/uncontended");
            for (int i = 0; i < WARM_UP; i++) {
                c.getLockClient().unlock(c.getLockClient().lock(name, lease).get(5, TimeUnit.SECONDS).getKey()).get(5, TimeUnit.SECONDS);
            }
            EtcdMetrics before = EtcdMetrics.read(member);
            for (int i = 0; i < OPERATIONS; i++) {
                c.getLockClient().unlock(c.getLockClient().lock(name, lease).get(5, TimeUnit.SECONDS).getKey()).get(5, TimeUnit.SECONDS);
            }
            EtcdMetrics after = EtcdMetrics.read(member);
            c.getLeaseClient().revoke(lease).get(5, TimeUnit.SECONDS);
            return new Costs(before, after, OPERATIONS);
        }
    }

    private static PingPong jetcdHandOffs() throws Exception {
        try (Client a = Client.builder().endpoints(member.clientUrl()).build(); Client b = Client.builder().endpoints(member.clientUrl()).build();
             Client raw = Client.builder().endpoints(member.clientUrl()).build()) {
            Client[] clients = {a, b};
            long[] leases = {a.getLeaseClient().grant(30).get(5, TimeUnit.SECONDS).getID(),
                    b.getLeaseClient().grant(30).get(5, TimeUnit.SECONDS).getID()};
            ByteSequence name = EtcdKeys.utf8(PREFIX + "-jetcd/hand-off");
            PingPong run = new PingPong(raw, PREFIX + "-jetcd/hand-off/");
            ByteSequence held = a.getLockClient().lock(name, leases[0]).get(5, TimeUnit.SECONDS).getKey();
            Client holder = a;
            for (int i = 0; i < WARM_UP + HAND_OFFS; i++) {
                if (i == WARM_UP) {
                    run.start();
                }
                awaitWatchers(0);
                int next = (i + 1) % 2;
                var granted = clients[next].getLockClient().lock(name, leases[next]);
                run.awaitQueuedAndWatching();
                holder.getLockClient().unlock(held).get(5, TimeUnit.SECONDS);
                held = granted.get(30, TimeUnit.SECONDS).getKey();
                holder = clients[next];
            }
            run.stop();
            holder.getLockClient().unlock(held).get(5, TimeUnit.SECONDS);
            a.getLeaseClient().revoke(leases[0]).get(5, TimeUnit.SECONDS);
            b.getLeaseClient().revoke(leases[1]).get(5, TimeUnit.SECONDS);
            return run;
        }
    }

    // ------------------------------------------------------------------------------------------ helpers

    /**
     * A series of hand-offs between two clients: before each release the next waiter is queued (two keys under the
     * lock) and watching (etcd counts one watcher). The probe reads that find out are subtracted from the counts.
     */
    private static final class PingPong {
        private final Client raw;
        private final String keys;
        private final CountingStore[] stores;
        private EtcdMetrics before;
        private EtcdMetrics after;
        private int probes;
        private int attemptsBefore;
        private int releasesBefore;
        private int attempts;
        private int releases;
        int slowWatchersSeen;

        PingPong(Client raw, String keys, CountingStore... stores) {
            this.raw = raw;
            this.keys = keys;
            this.stores = stores;
        }

        void start() throws Exception {
            before = EtcdMetrics.read(member);
            probes = 0;
            slowWatchersSeen = 0;
            attemptsBefore = sum(true);
            releasesBefore = sum(false);
        }

        void stop() throws Exception {
            after = EtcdMetrics.read(member);
            attempts = sum(true) - attemptsBefore;
            releases = sum(false) - releasesBefore;
        }

        private int sum(boolean attempts) {
            int n = 0;
            for (CountingStore s : stores) {
                n += attempts ? s.attempts() : s.releases();
            }
            return n;
        }

        int attempts() {
            return attempts;
        }

        int releases() {
            return releases;
        }

        void awaitQueuedAndWatching() throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (raw.getKVClient().get(EtcdKeys.utf8(keys), GetOption.builder().isPrefix(true).withCountOnly(true).build())
                    .get(5, TimeUnit.SECONDS).getCount() < 2) {
                probes++;
                assertThat(System.nanoTime()).as("the next waiter queued in time").isLessThan(deadline);
                Thread.sleep(1);
            }
            probes++;
            EtcdMetrics now = awaitWatchers(1);
            slowWatchersSeen += (int) now.get("etcd_debugging_mvcc_slow_watcher_total");
        }

        Costs costs() {
            return new Costs(before, after, HAND_OFFS, probes);
        }
    }

    /** Waits until etcd counts {@code count} watchers, and returns the reading that did. */
    private static EtcdMetrics awaitWatchers(int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            EtcdMetrics now = EtcdMetrics.read(member);
            if (now.get("etcd_debugging_mvcc_watcher_total") == count) {
                return now;
            }
            assertThat(System.nanoTime()).as("etcd counts %d watchers in time", count).isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    /** What the server counted between two readings, per operation; {@code probes} of the Range requests were the test's. */
    private record Costs(EtcdMetrics before, EtcdMetrics after, int operations, int probes) {
        Costs(EtcdMetrics before, EtcdMetrics after, int operations) {
            this(before, after, operations, 0);
        }

        double total(String method) {
            return after.calls(before, method) - ("Range".equals(method) ? probes : 0);
        }

        double per(String method) {
            return total(method) / operations;
        }

        double requests() {
            return (after.since(before, "grpc_server_started_total") - probes) / operations;
        }

        double proposals() {
            return after.since(before, "etcd_server_proposals_committed_total") / operations;
        }

        double events() {
            return after.since(before, "etcd_debugging_mvcc_events_total") / operations;
        }

        @Override
        public String toString() {
            StringBuilder byMethod = new StringBuilder();
            for (String m : new String[] {"Txn", "Range", "Put", "DeleteRange", "LeaseKeepAlive", "LeaseGrant", "Watch", "Lock", "Unlock"}) {
                if (per(m) != 0) {
                    byMethod.append(byMethod.length() == 0 ? "" : ", ").append(String.format("%s %.2f", m, per(m)));
                }
            }
            return String.format("requests %.2f (%s), proposals %.2f, watch events %.2f; inside etcd: ranges %.2f, puts %.2f, deletes %.2f",
                    requests(), byMethod, proposals(), events(),
                    (after.since(before, "etcd_mvcc_range_total") - probes) / operations,
                    after.since(before, "etcd_mvcc_put_total") / operations, after.since(before, "etcd_mvcc_delete_total") / operations);
        }
    }
}
