package io.holdfast.etcd;

import io.etcd.jetcd.KeyValue;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Review finding E1, at store level: an attempt that fails during an outage leaves its owner's key "in doubt";
 * the outage ends and the owner's retry acquires. Nothing the store does in the background may then delete
 * that owner's key: while the owner keeps renewing, its hold stays renewed and another owner stays queued.
 */
class InDoubtDeleteTest {
    private static final String PREFIX = "in-doubt-" + UUID.randomUUID().toString().substring(0, 8);
    private static final Duration LEASE = Duration.ofSeconds(2);
    /** The core's margin for a 2 s lease: the hold is valid until send time + lease - margin. */
    private static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    @RegisterExtension
    static final OneEtcdMember ETCD = new OneEtcdMember();

    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "in-doubt-test-keepalive");
        t.setDaemon(true);
        return t;
    });

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aRetryThatWinsAfterAnOutageKeepsItsKey() throws Exception {
        for (int trial = 0; trial < 3; trial++) {
            String name = "doubt/" + trial;
            String ownerB = "b-" + trial;
            String ownerC = "c-" + trial;
            EtcdCluster.Member member = ETCD.cluster().members().get(0);
            try (ReplyHoldingProxy proxy = new ReplyHoldingProxy("127.0.0.1", member.clientPort);
                 EtcdLockStore b = new EtcdLockStore(EtcdUri.parse("etcd://127.0.0.1:" + proxy.port() + "/" + PREFIX
                         + "?requestTimeout=2s"));
                 EtcdLockStore c = new EtcdLockStore(EtcdUri.parse(ETCD.cluster().uri(PREFIX, "requestTimeout=2s")))) {
                // B's store gets its session, which the test keeps alive from outside (B's own keep-alives get no
                // answer in the outage), so that the outage decides nothing about it.
                assertThat(b.tryAcquire("warm/" + trial, "w-" + trial, "b", LEASE).acquired()).as("B's store has its session").isTrue();
                long session = holderKey("warm/" + trial).getLease();
                b.release("warm/" + trial, "w-" + trial);
                ScheduledFuture<?> keepAlive = TIMER.scheduleWithFixedDelay(() -> ETCD.raw().getLeaseClient().keepAliveOnce(session),
                        0, 300, TimeUnit.MILLISECONDS);
                // The outage: etcd does what B's store asks, but no answer comes back. B's attempt times out after
                // 2 s (etcd has applied it): its key is in doubt. The store decides about that key at the attempt's
                // send time + lease, here as the attempt fails.
                proxy.holdReplies();
                long s0 = System.nanoTime();
                assertThatThrownBy(() -> b.tryAcquire(name, ownerB, "b", LEASE)).isInstanceOf(StoreUnavailableException.class);
                // The owner's retry, still in the outage; the outage ends while the retry waits for its answer.
                sleepUntil(s0 + TimeUnit.MILLISECONDS.toNanos(3800));
                long[] sent = new long[1];
                CompletableFuture<Attempt> retry = CompletableFuture.supplyAsync(() -> {
                    sent[0] = System.nanoTime();
                    return b.tryAcquire(name, ownerB, "b", LEASE);
                });
                sleepUntil(s0 + TimeUnit.MILLISECONDS.toNanos(4600));
                proxy.deliverReplies();
                Attempt won;
                try {
                    won = retry.get(30, TimeUnit.SECONDS);
                    keepAlive.cancel(false);
                } catch (ExecutionException e) {
                    keepAlive.cancel(false);
                    assertThat(e.getCause()).isInstanceOf(StoreUnavailableException.class);
                    System.out.printf("trial %d: the retry got no answer in time (a slow machine); retrying%n", trial);
                    won = retryUntilAnswered(() -> {
                        sent[0] = System.nanoTime();
                        return b.tryAcquire(name, ownerB, "b", LEASE);
                    });
                }
                assertThat(won.acquired()).as("trial %d: B's retry after the outage, on a free lock", trial).isTrue();
                HoldRef hold = new HoldRef(name, ownerB, won.fencingToken());
                // B's hold is valid, as the core counts it, until the send time of its last acquire or renewal
                // + lease - margin. Renew it as the core would (more often than lease/3) and check, for longer than
                // the store takes to retry a delete, that nobody else gets the lock while it is valid.
                long validUntil = sent[0] + LEASE.toNanos() - MARGIN_NANOS;
                for (int round = 0; round < 8; round++) {
                    Thread.sleep(400);
                    long renewSent = System.nanoTime();
                    Set<String> renewed = retryUntilAnswered(() -> b.renew(List.of(hold), LEASE));
                    if (renewSent - validUntil < 0) {
                        assertThat(renewed).as("trial %d, round %d: B's renewal, sent while its hold was valid", trial, round)
                                .containsExactly(ownerB);
                        validUntil = renewSent + LEASE.toNanos() - MARGIN_NANOS;
                    }
                    long otherSent = System.nanoTime();
                    Attempt other = c.tryAcquire(name, ownerC, "c", LEASE);
                    KeyValue key = holderKey(name);
                    if (other.acquired()) {
                        assertThat(otherSent - validUntil).as("trial %d, round %d: C acquired a lock whose holder B is "
                                + "still valid (B's key now: %s); nanoseconds after B's deadline", trial, round,
                                key == null ? "gone" : key.getCreateRevision()).isGreaterThanOrEqualTo(0);
                        break; // B's hold had ended by the core's count (a very slow machine): nothing more to check
                    }
                }
                b.release(name, ownerB);
                c.release(name, ownerC);
            }
        }
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private interface Call<T> {
        T call();
    }

    /** The call, retried while the client is still reconnecting after the outage (at most 30 times). */
    private static <T> T retryUntilAnswered(Call<T> call) throws InterruptedException {
        for (int i = 0; ; i++) {
            try {
                return call.call();
            } catch (StoreUnavailableException e) {
                if (i == 30) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static KeyValue holderKey(String name) throws Exception {
        List<KeyValue> kvs = ETCD.raw().getKVClient().get(EtcdKeys.utf8(PREFIX + "/" + name + "!"), io.etcd.jetcd.options.GetOption.builder()
                .isPrefix(true).withSortField(io.etcd.jetcd.options.GetOption.SortTarget.CREATE)
                .withSortOrder(io.etcd.jetcd.options.GetOption.SortOrder.ASCEND).withLimit(1).build())
                .get(10, TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? null : kvs.get(0);
    }
}
