package io.holdfast.etcd;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Members of a 3-member cluster dying under a held lock: a member a client uses, the only member a client
 * knows, and the leader. Killed members are started again after each test.
 */
class ClusterFaultsTest {
    private static final String PREFIX = "faults-" + UUID.randomUUID().toString().substring(0, 8);
    private static final Duration SOON = Duration.ofSeconds(30);
    private static EtcdCluster etcd;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(3);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @AfterEach
    void closeClientsAndRestartKilledMembers() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        toClose.clear();
        for (EtcdCluster.Member m : etcd.members()) {
            if (!m.isAlive()) {
                m.restart();
            }
        }
    }

    private Holdfast connect(String uri) {
        Holdfast h = Holdfast.connect(uri);
        toClose.add(h);
        return h;
    }

    /**
     * A client that knows every member spreads its calls over them; killing one of them (a follower, so the
     * cluster keeps its leader) costs at most a few failed calls: the hold stays valid through three lease
     * lengths of renewals, nobody else gets the lock, and it is released normally.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void killingAMemberTheClientUsesKeepsTheHold() throws Exception {
        String name = "fault/member";
        EtcdCluster.Member leader = etcd.leader();
        EtcdCluster.Member victim = etcd.members().stream().filter(m -> m != leader).findFirst().orElseThrow();
        Holdfast holder = connect(etcd.uri(PREFIX, null));
        Holdfast other = connect(etcd.uri(PREFIX, null));
        Duration lease = Duration.ofSeconds(3);
        Hold hold = holder.lock(name, lease, true).acquire(SOON);
        AtomicReference<String> lost = new AtomicReference<>();
        hold.onLost((h, why) -> lost.set(why));
        // Make sure the client has used the victim: a few calls spread round-robin over the members.
        for (int i = 0; i < 6; i++) {
            assertThat(other.lock(name).tryAcquire()).isEmpty();
        }

        victim.kill();
        long until = System.nanoTime() + lease.multipliedBy(3).toNanos();
        int checks = 0;
        while (System.nanoTime() < until) {
            assertThat(hold.isValid()).as("hold valid after %s was killed (loss: %s)", victim, lost.get()).isTrue();
            assertThat(other.lock(name).tryAcquire()).as("another client's tryAcquire while the hold lives").isEmpty();
            checks++;
            Thread.sleep(250);
        }
        assertThat(checks).isGreaterThan(5);
        assertThat(lost.get()).as("loss reported for a hold whose client could still reach a quorum").isNull();
        LockInfo info = other.admin().status(name).orElseThrow();
        assertThat(info.fencingToken()).isEqualTo(hold.fencingToken());
        hold.close();
        try (Hold next = other.lock(name).acquire(SOON)) {
            assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
        }
    }

    /**
     * A client that knows only one member loses the cluster when that member dies: its hold is reported lost,
     * and only after that (its local deadline comes before etcd expires the session lease) does a client on
     * the other members get the lock.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aClientWhoseOnlyMemberDiesReportsTheLossBeforeAnyoneElseGetsTheLock() throws Exception {
        String name = "fault/only-member";
        EtcdCluster.Member only = etcd.members().get(0);
        List<EtcdCluster.Member> rest = etcd.members().subList(1, 3);
        Holdfast holder = connect(EtcdCluster.uri(only, PREFIX, "requestTimeout=1s"));
        Holdfast other = connect("etcd://" + rest.get(0).hostPort() + "," + rest.get(1).hostPort() + "/" + PREFIX);
        Hold hold = holder.lock(name, Duration.ofSeconds(2), true).acquire(SOON);
        AtomicLong lostAt = new AtomicLong();
        CountDownLatch lost = new CountDownLatch(1);
        hold.onLost((h, why) -> {
            lostAt.set(System.nanoTime());
            lost.countDown();
        });
        AtomicLong acquiredAt = new AtomicLong();
        CompletableFuture<Hold> waiter = other.lock(name).acquireAsync(Duration.ofSeconds(60))
                .whenComplete((h, e) -> acquiredAt.set(System.nanoTime()));
        Thread.sleep(500);
        assertThat(waiter.isDone()).as("the waiter got a held lock").isFalse();

        only.kill();
        assertThat(lost.await(30, TimeUnit.SECONDS)).as("loss reported within 30s of its only member's death").isTrue();
        try (Hold next = waiter.get(30, TimeUnit.SECONDS)) {
            assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
            assertThat(acquiredAt.get() - lostAt.get()).as("ns from the old holder's loss report to the next holder's grant")
                    .isPositive();
        }
        assertThat(hold.isValid()).isFalse();
    }

    /**
     * Killing the leader: a new one is elected, etcd carries the leases over (and extends them), renewals
     * resume, the hold is never reported lost, a waiter keeps waiting, and it gets the lock at release.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void killingTheLeaderKeepsTheHoldAndItsWaiter() throws Exception {
        String name = "fault/leader";
        Holdfast holder = connect(etcd.uri(PREFIX, null));
        Holdfast other = connect(etcd.uri(PREFIX, null));
        Duration lease = Duration.ofSeconds(5);
        Hold hold = holder.lock(name, lease, true).acquire(SOON);
        AtomicReference<String> lost = new AtomicReference<>();
        hold.onLost((h, why) -> lost.set(why));
        CompletableFuture<Hold> waiter = other.lock(name).acquireAsync(Duration.ofSeconds(90));

        EtcdCluster.Member leader = etcd.leader();
        leader.kill();
        EtcdCluster.Member newLeader = etcd.leader();
        assertThat(newLeader).isNotSameAs(leader);

        long until = System.nanoTime() + lease.multipliedBy(2).toNanos();
        while (System.nanoTime() < until) {
            assertThat(hold.isValid()).as("hold valid after the leader %s was killed (loss: %s)", leader, lost.get()).isTrue();
            assertThat(waiter.isDone()).as("waiter done while the lock is held").isFalse();
            Thread.sleep(250);
        }
        assertThat(lost.get()).isNull();
        hold.close();
        try (Hold next = waiter.get(30, TimeUnit.SECONDS)) {
            assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
        }
    }
}
