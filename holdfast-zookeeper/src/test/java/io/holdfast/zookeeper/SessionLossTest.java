package io.holdfast.zookeeper;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.testkit.LoopbackProxy;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A holder loses its session (expired, or cut off past its timeout) or lets its lease run out: it is
 * told before anyone else can hold the lock, and a fenced resource refuses its stale token.
 */
class SessionLossTest {
    private static TestingServer server;
    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

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

    @AfterEach
    void closeAll() throws Exception {
        while (!toClose.isEmpty()) {
            toClose.pop().close();
        }
    }

    private String uri(int port) {
        return "zookeeper://127.0.0.1:" + port + "/session-loss";
    }

    private TrackedClient client(int port) {
        TrackedClient c = TrackedClient.connect(uri(port));
        toClose.push(c);
        return c;
    }

    private static String name(String what) {
        return "session-loss/" + what + "/" + UUID.randomUUID();
    }

    /**
     * The holder's client is told its session expired (Curator's KillSession, ZooKeeper's testable hook:
     * what a client hears when it reconnects after the server expired it). Its next renewal finds the
     * node outside its new session and reports the hold lost; the server keeps the old session, and the
     * node, until the session times out, so the contender comes later.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anExpiredSessionIsReportedLostBeforeTheNextHolderActs() throws Exception {
        String name = name("expired");
        Duration lease = Duration.ofSeconds(3);
        TrackedClient holder = client(server.getPort());
        Holdfast contender = client(server.getPort()).holdfast();
        HolderLossScenario scenario = new HolderLossScenario(holder.holdfast().lock(name, lease, true), contender.lock(name, lease, true));
        long oldSession = holder.store().sessionFor(lease).sessionId();

        expireAsTheServerWouldTellIt(holder.store().sessionFor(lease).handleForTests());
        scenario.faultInjected();

        System.out.println("expired session: " + scenario.assertLostBeforeTheNextHolderActs());
        assertThat(holder.store().sessionFor(lease).sessionId()).as("the holder's client runs on in a new session").isNotEqualTo(oldSession);
        assertThatThrownBy(scenario.hold::close).as("close() of the hold lost with its session").isInstanceOf(io.holdfast.LockLostException.class);
    }

    /**
     * Tells the client behind {@code zk} that its session expired, the way ZooKeeper's client learns it
     * from a server: its connection is dead before anyone reacts to the Expired event. Curator's
     * KillSession (ZooKeeper's testable hook) marks the client closed only after queueing that event, so
     * called from another thread Curator may react first, close the handle properly and thereby close the
     * session on the server at once, which is a forced release, not an expiry. Called from the client's
     * own event thread (inside a reply callback), the event waits until the hook has returned.
     */
    private static void expireAsTheServerWouldTellIt(ZooKeeper zk) throws Exception {
        CompletableFuture<Void> injected = new CompletableFuture<>();
        zk.exists("/", false, (rc, path, ctx, stat) -> {
            KillSession.kill(zk);
            injected.complete(null);
        }, null);
        injected.get(10, TimeUnit.SECONDS);
    }

    /**
     * A session closed on the server by another client that knows its id and password (an operator's
     * forced expiry) frees the lock at once, like a force-release: the holder cannot be told before the
     * next holder acts. It is told at its next renewal, and the fencing check refuses its stale token.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aSessionClosedOnTheServerIsReportedLostAndFencedOut() throws Exception {
        String name = name("closed-on-server");
        Duration lease = Duration.ofSeconds(3);
        TrackedClient holder = client(server.getPort());
        Holdfast contender = client(server.getPort()).holdfast();
        HolderLossScenario scenario = new HolderLossScenario(holder.holdfast().lock(name, lease, true), contender.lock(name, lease, true));
        Session session = holder.store().sessionFor(lease);

        ZooKeeper impostor = new ZooKeeper(server.getConnectString(), 3000, event -> { }, session.sessionId(), session.password());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!impostor.getState().isConnected() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(impostor.getState().isConnected()).as("a second handle attached to the holder's session").isTrue();
        impostor.close(); // closes the session on the server: its ephemeral nodes go at once
        scenario.faultInjected();

        Hold next = scenario.contenderHold();
        assertThat(scenario.awaitLoss(30)).as("the holder was told within 30s").isTrue();
        assertThat(HolderLossScenario.ms(scenario.lostAtNanos() - scenario.acquiredAtNanos()))
                .as("a forced close is seen at the next renewal: within a third of the lease (plus slack) after the new holder")
                .isLessThan(lease.toMillis() / 3 + 2_000);
        assertThat(scenario.resource.write(next.fencingToken())).as("the new holder's write").isTrue();
        assertThat(scenario.resource.write(scenario.hold.fencingToken())).as("the old holder's write with its stale token").isFalse();
        System.out.println("session closed on the server: loss reported " + HolderLossScenario.ms(scenario.lostAtNanos() - scenario.acquiredAtNanos())
                + " ms after the next holder acquired");
        next.close();
    }

    /**
     * The holder is cut off (its proxy closes every connection and refuses new ones) for longer than its
     * session timeout: its renewals fail, its local deadline passes before the server expires the
     * session, and only then can the contender take the lock.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aHolderPartitionedPastItsSessionTimeoutIsReportedLostBeforeTheNextHolderActs() throws Exception {
        String name = name("partitioned");
        Duration lease = Duration.ofSeconds(15); // the core's margin between local deadline and lease: 750 ms
        LoopbackProxy proxy = new LoopbackProxy("127.0.0.1", server.getPort());
        toClose.push(proxy);
        Holdfast holder = client(proxy.port()).holdfast();
        Holdfast contender = client(server.getPort()).holdfast();
        HolderLossScenario scenario = new HolderLossScenario(holder.lock(name, lease, true), contender.lock(name, lease, true));
        Thread.sleep(lease.toMillis() / 3 + 500); // a renewal through the proxy first

        proxy.cut();
        scenario.faultInjected();

        assertThat(scenario.awaitLoss(60)).isTrue();
        assertThat(scenario.contenderDone()).as("the contender had the lock when the holder was told").isFalse();
        System.out.println("partition: " + scenario.assertLostBeforeTheNextHolderActs());
        proxy.restore();
    }

    /**
     * A lease that is not renewed ends the hold when it runs out, although the holder's session lives on:
     * the store deletes the node itself, after the hold turned invalid locally.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLeaseThatIsNotRenewedFreesTheLockWhileTheHolderLives() throws Exception {
        String name = name("unrenewed");
        Duration lease = Duration.ofSeconds(2);
        TrackedClient holder = client(server.getPort());
        Holdfast contender = client(server.getPort()).holdfast();
        HolderLossScenario scenario = new HolderLossScenario(holder.holdfast().lock(name, lease, false), contender.lock(name, lease, true));
        scenario.faultInjected(); // the "fault" is time passing

        System.out.println("unrenewed lease: " + scenario.assertLostBeforeTheNextHolderActs());
        assertThat(holder.store().sessionFor(lease).connected()).as("the holder's session is still connected").isTrue();
    }

    /** A lease longer than the longest session the servers grant is refused, saying what is allowed. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLeaseLongerThanTheServersGrantAnySessionIsRefused() {
        Holdfast holdfast = client(server.getPort()).holdfast();
        String name = name("too-long");
        assertThatThrownBy(() -> holdfast.lock(name, Duration.ofMinutes(2), true).tryAcquire())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease 2m")
                .hasMessageContaining("maxSessionTimeout")
                .hasMessageContaining("allowed: 1s to 1m (");
        assertThat(holdfast.admin().status(name)).as("nothing was queued for the refused lease").isEmpty();
        try (Hold longest = holdfast.lock(name, Duration.ofMinutes(1), true).tryAcquire().orElseThrow()) {
            assertThat(longest.isValid()).as("a lease as long as the longest session").isTrue();
        }
    }
}
