package io.holdfast.zookeeper;

import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Retries after a lost reply: the create of a queue node reaches the server, its reply does not. The
 * retried acquire (same owner id) finds that node by the owner id in its name and adopts it, with the
 * same token, instead of creating a second one; and a release after such a loss removes it.
 */
class LostReplyTest {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aCreateWhoseReplyWasLostIsAdoptedByTheRetryNotLeaked() throws Exception {
        try (TestingServer server = TestEnsembles.single();
             StallingProxy proxy = new StallingProxy(server.getPort());
             ZooKeeperLockStore store = (ZooKeeperLockStore) new ZooKeeperLockStoreProvider()
                     .open("zookeeper://127.0.0.1:" + proxy.port() + "/lost-reply?connectTimeout=1s");
             ZooKeeperLockStore observer = (ZooKeeperLockStore) new ZooKeeperLockStoreProvider()
                     .open("zookeeper://127.0.0.1:" + server.getPort() + "/lost-reply")) {
            String name = "lost-reply/" + UUID.randomUUID();
            String owner = "owner-" + UUID.randomUUID();
            String dir = LockNodes.dir("/lost-reply", name);
            ZooKeeper zk = observer.sessionFor(LEASE).handleForTests();
            long session = store.sessionFor(LEASE).sessionId();
            // The directory exists beforehand, so the create is the first request that goes unanswered.
            assertThat(store.tryAcquire(name, "warm-up", "test", LEASE).acquired()).isTrue();
            assertThat(store.release(name, "warm-up")).isTrue();

            proxy.stallReplies();
            assertThatThrownBy(() -> store.tryAcquire(name, owner, "test", LEASE)).isInstanceOf(StoreUnavailableException.class);
            List<String> afterLostReply = LockNodes.queue(zk.getChildren(dir, false));
            assertThat(afterLostReply).as("queue nodes after the create whose reply was lost").hasSize(1);
            assertThat(LockNodes.owner(afterLostReply.get(0))).isEqualTo(owner);
            long czxid = zk.exists(dir + "/" + afterLostReply.get(0), false).getCzxid();

            proxy.dropStalledAndResume(); // the client reconnects, to the same session
            Attempt retry = retryWhileReconnecting(() -> store.tryAcquire(name, owner, "test", LEASE));
            assertThat(store.sessionFor(LEASE).sessionId()).as("the session survived the reconnect").isEqualTo(session);
            assertThat(retry.acquired()).as("the retried acquire").isTrue();
            assertThat(retry.fencingToken()).as("token of the retried acquire: the czxid of the node the lost create made").isEqualTo(czxid);
            assertThat(LockNodes.queue(zk.getChildren(dir, false))).as("queue nodes after the retry").containsExactlyElementsOf(afterLostReply);

            // The same with the owner giving up instead of retrying: the release finds the node by its owner id.
            String quitter = "quitter-" + UUID.randomUUID();
            proxy.stallReplies();
            assertThatThrownBy(() -> store.tryAcquire(name, quitter, "test", LEASE)).isInstanceOf(StoreUnavailableException.class);
            proxy.dropStalledAndResume();
            assertThat(LockNodes.queue(zk.getChildren(dir, false))).as("queue after the second lost reply").hasSize(2);
            boolean freed = retryWhileReconnecting(() -> store.release(name, quitter));
            assertThat(freed).as("release of a queued (not holding) owner").isFalse();
            assertThat(LockNodes.queue(zk.getChildren(dir, false))).as("queue after the give-up").containsExactlyElementsOf(afterLostReply);
            assertThat(store.release(name, owner)).isTrue();
        }
    }

    private static <T> T retryWhileReconnecting(java.util.function.Supplier<T> call) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return call.get();
            } catch (StoreUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
