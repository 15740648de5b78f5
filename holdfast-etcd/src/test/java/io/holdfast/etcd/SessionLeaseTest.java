package io.holdfast.etcd;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The session leases behind the holds: their TTL follows the hold's lease, a hold without renewal ends at
 * its lease even while other holds keep the same session alive, and a queued waiter keeps its place for
 * many TTLs while it waits without a call of its own.
 */
class SessionLeaseTest {
    private static final String PREFIX = "sessions-" + UUID.randomUUID().toString().substring(0, 8);
    @RegisterExtension
    static final OneEtcdMember ETCD = new OneEtcdMember();

    /** The key of the holder of {@code name}, read straight from etcd. */
    private static KeyValue holderKey(String name) throws Exception {
        List<KeyValue> kvs = ETCD.raw().getKVClient().get(EtcdKeys.utf8(PREFIX + "/" + name + "!"), GetOption.builder().isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build())
                .get(10, TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? null : kvs.get(0);
    }

    /** Holds of one lease length share one etcd lease whose TTL is that length; another length gets its own. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void holdsOfOneLeaseLengthShareASessionLeaseWithThatTtl() throws Exception {
        try (Holdfast h = Holdfast.connect(ETCD.cluster().uri(PREFIX, null))) {
            Hold a = h.lock("share/a", Duration.ofSeconds(3), true).acquire(Duration.ofSeconds(10));
            Hold b = h.lock("share/b", Duration.ofSeconds(3), true).acquire(Duration.ofSeconds(10));
            Hold c = h.lock("share/c", Duration.ofMillis(4500), true).acquire(Duration.ofSeconds(10));
            long leaseA = holderKey("share/a").getLease();
            long leaseC = holderKey("share/c").getLease();
            assertThat(holderKey("share/b").getLease()).as("lease of b, same length as a").isEqualTo(leaseA);
            assertThat(leaseC).as("lease of c, another length").isNotEqualTo(leaseA);
            assertThat(ETCD.raw().getLeaseClient().timeToLive(leaseA, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS).getGrantedTTL())
                    .as("TTL of the 3s holds' session").isEqualTo(3);
            assertThat(ETCD.raw().getLeaseClient().timeToLive(leaseC, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS).getGrantedTTL())
                    .as("TTL of the 4.5s hold's session: rounded up to whole seconds").isEqualTo(5);
            a.close();
            b.close();
            c.close();
        }
    }

    /**
     * A hold taken without renewal ends at its lease: its client deletes the key once the lease has run out,
     * although a renewed hold of the same length keeps the shared session lease alive, so another client gets
     * the lock soon after the lease while the renewed hold lives on.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anUnrenewedHoldEndsAtItsLeaseWhileItsSessionLivesOn() throws Exception {
        try (Holdfast h = Holdfast.connect(ETCD.cluster().uri(PREFIX, null)); Holdfast other = Holdfast.connect(ETCD.cluster().uri(PREFIX, null))) {
            Duration lease = Duration.ofSeconds(2);
            Hold renewed = h.lock("unrenewed/kept", lease, true).acquire(Duration.ofSeconds(10));
            long start = System.nanoTime();
            Hold once = h.lock("unrenewed/once", lease, false).acquire(Duration.ofSeconds(10));
            assertThat(holderKey("unrenewed/once").getLease()).as("both holds on one session").isEqualTo(holderKey("unrenewed/kept").getLease());

            try (Hold next = other.lock("unrenewed/once").acquire(Duration.ofSeconds(20))) {
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(waitedMs).as("ms until another client got the unrenewed lock").isGreaterThanOrEqualTo(lease.toMillis() - 300);
                assertThat(next.fencingToken()).isGreaterThan(once.fencingToken());
            }
            assertThat(once.isValid()).isFalse();
            assertThat(renewed.isValid()).as("the renewed hold on the same session").isTrue();
            assertThat(other.lock("unrenewed/kept").tryAcquire()).isEmpty();
            renewed.close();
        }
    }

    /**
     * A waiter queued behind a long hold makes no calls while it waits (it watches), yet its key survives
     * many TTLs of its 1 s session lease, kept alive in the background; it gets the lock at the release.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aQueuedWaiterKeepsItsPlaceForManyTtls() throws Exception {
        try (Holdfast holder = Holdfast.connect(ETCD.cluster().uri(PREFIX, null)); Holdfast waiting = Holdfast.connect(ETCD.cluster().uri(PREFIX, null))) {
            Hold hold = holder.lock("queued/long").acquire(Duration.ofSeconds(10));
            CompletableFuture<Hold> waiter = waiting.lock("queued/long", Duration.ofSeconds(1), true).acquireAsync(Duration.ofSeconds(30));
            Thread.sleep(4_000);
            List<KeyValue> keys = ETCD.raw().getKVClient().get(EtcdKeys.utf8(PREFIX + "/queued/long!"), GetOption.builder().isPrefix(true).build())
                    .get(10, TimeUnit.SECONDS).getKvs();
            assertThat(keys).as("holder and waiter keys after 4 TTLs of the waiter's session").hasSize(2);
            LockInfo info = waiting.admin().status("queued/long").orElseThrow();
            assertThat(info.fencingToken()).isEqualTo(hold.fencingToken());
            assertThat(waiter.isDone()).isFalse();
            long released = System.nanoTime();
            hold.close();
            try (Hold next = waiter.get(20, TimeUnit.SECONDS)) {
                System.out.printf("queued waiter got the lock %d ms after the release%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released));
                assertThat(next.fencingToken()).as("the waiter's token is its queued key's create revision")
                        .isEqualTo(keys.get(0).getCreateRevision() == hold.fencingToken()
                                ? keys.get(1).getCreateRevision() : keys.get(0).getCreateRevision());
            }
        }
    }

    /**
     * Jepsen's lesson: a waiter whose session lease expired while it waited (revoked here, as etcd does when
     * a paused waiter misses its keep-alives) lost its place. Woken later, it must not take the lock on the
     * strength of the place it had: it queues again, at the back, behind a waiter that came after it.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWaiterWhoseSessionExpiredQueuesAgainAtTheBack() throws Exception {
        String name = "jepsen/requeue";
        try (Holdfast holder = Holdfast.connect(ETCD.cluster().uri(PREFIX, null)); Holdfast early = Holdfast.connect(ETCD.cluster().uri(PREFIX, null));
             Holdfast late = Holdfast.connect(ETCD.cluster().uri(PREFIX, null))) {
            Hold hold = holder.lock(name).acquire(Duration.ofSeconds(10));
            CompletableFuture<Hold> first = early.lock(name, Duration.ofSeconds(3), true).acquireAsync(Duration.ofSeconds(40));
            awaitKeys(name, 2);
            KeyValue earlyKey = keys(name).get(1);
            CompletableFuture<Hold> second = late.lock(name).acquireAsync(Duration.ofSeconds(40));
            awaitKeys(name, 3);

            ETCD.raw().getLeaseClient().revoke(earlyKey.getLease()).get(10, TimeUnit.SECONDS);
            awaitKeys(name, 2); // the early waiter's key went with its session
            hold.close();
            Hold lateHold = second.get(20, TimeUnit.SECONDS);
            assertThat(first.isDone()).as("the early waiter, whose key had gone, got the lock before the late one").isFalse();
            assertThat(lateHold.fencingToken()).isGreaterThan(earlyKey.getCreateRevision());
            lateHold.close();
            try (Hold earlyHold = first.get(20, TimeUnit.SECONDS)) {
                assertThat(earlyHold.fencingToken()).as("the early waiter's token: a new key's revision, not its lost one")
                        .isGreaterThan(lateHold.fencingToken());
            }
        }
    }

    private static List<KeyValue> keys(String name) throws Exception {
        return ETCD.raw().getKVClient().get(EtcdKeys.utf8(PREFIX + "/" + name + "!"), GetOption.builder().isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).build())
                .get(10, TimeUnit.SECONDS).getKvs();
    }

    private static void awaitKeys(String name, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (keys(name).size() != count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("expected " + count + " keys under " + name + ", have " + keys(name).size());
            }
            Thread.sleep(20);
        }
    }
}
