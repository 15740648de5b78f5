package io.holdfast.redis;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import io.holdfast.StoreUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a Sentinel failover does to a held lock. The test stops the replica (SIGSTOP) and drops its link,
 * so the master can die with an acquisition the replica never received, which is what asynchronous
 * replication allows. Each test prints what happened; the README states the same.
 */
class SentinelFailoverTest {

    /** A stand-in for a resource that checks fencing tokens: it accepts a write only with a token above every one it saw. */
    private static final class FencedResource {
        private long highest;

        synchronized boolean write(long token) {
            if (token <= highest) {
                return false;
            }
            highest = token;
            return true;
        }
    }

    /**
     * Without waiting for replicas: the master dies after granting a lock the replica never saw; after the
     * failover a second client gets the same lock while the first still believes it holds it (two holders,
     * as the docs warn), its token is greater, so a fencing check rejects the stale holder; a renewing
     * holder learns of its loss at its next renewal.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aFailoverThatLostTheAcquisitionLetsASecondHolderInAndFencingRejectsTheStaleOne() throws Exception {
        try (SentinelServers servers = new SentinelServers();
             Holdfast first = Holdfast.connect(servers.uri("prefix=failover:&timeout=1s"));
             Holdfast second = Holdfast.connect(servers.uri("prefix=failover:&timeout=1s"))) {
            String name = "failover/unreplicated";
            String renewing = "failover/renewing";
            servers.replica.pause();
            servers.master.call("CLIENT", "KILL", "TYPE", "replica");
            awaitField(servers.master, "replication", "connected_slaves", "0");

            // The holder stands for a paused process: an explicit lease, no renewal, so only its local deadline ends it.
            Hold stale = first.lock(name, Duration.ofSeconds(30), false).acquire(Duration.ofSeconds(10));
            Hold renewed = first.lock(renewing, Duration.ofSeconds(3), true).acquire(Duration.ofSeconds(10));
            CountDownLatch renewedLost = new CountDownLatch(1);
            AtomicReference<String> lossReason = new AtomicReference<>();
            renewed.onLost((h, why) -> {
                lossReason.set(why);
                renewedLost.countDown();
            });
            long killedAt = System.nanoTime();
            servers.master.kill();
            servers.replica.resume();
            assertThat(servers.replica.call("EXISTS", "failover:{" + name + "}")).as("the replica has the acquisition").isEqualTo(0L);
            awaitFailover(servers);
            long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);

            Hold newHolder = second.lock(name).acquire(Duration.ofSeconds(60));
            boolean bothValid = stale.isValid() && newHolder.isValid();
            FencedResource resource = new FencedResource();
            boolean newAccepted = resource.write(newHolder.fencingToken());
            boolean staleAccepted = resource.write(stale.fencingToken());
            boolean lostInTime = renewedLost.await(30, TimeUnit.SECONDS);

            System.out.printf("failover without waitReplicas: master killed, replica promoted after %d ms; second client acquired the "
                            + "lost lock (token %d) while the first still held it locally (token %d, valid=%s); fencing accepted the new "
                            + "holder's write: %s, the stale holder's: %s; the renewing hold was reported lost: %s (%s)%n",
                    failoverMs, newHolder.fencingToken(), stale.fencingToken(), stale.isValid(), newAccepted, staleAccepted, lostInTime,
                    lossReason.get());
            assertThat(bothValid).as("two holders at once after a failover that lost the acquisition").isTrue();
            assertThat(newHolder.fencingToken()).as("the new holder's token vs the lost acquisition's").isGreaterThan(stale.fencingToken());
            assertThat(newAccepted).isTrue();
            assertThat(staleAccepted).as("the fencing check lets the stale holder's write in").isFalse();
            assertThat(lostInTime).as("the renewing hold on the lost master was reported lost within 30s").isTrue();
            newHolder.close();
        }
    }

    /**
     * With {@code waitReplicas=1}: an acquisition the replica does not acknowledge is given back and refused
     * with a {@link StoreUnavailableException}; one it acknowledges survives the failover (another client is
     * refused and sees the same holder and token on the promoted master). With no replica left, renewals
     * cannot be acknowledged, so the hold is reported lost rather than kept silently.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void waitingForOneReplicaKeepsTheAcquisitionAcrossAFailover() throws Exception {
        try (SentinelServers servers = new SentinelServers();
             Holdfast first = Holdfast.connect(servers.uri("prefix=failover:&timeout=1s&waitReplicas=1&waitTimeout=500ms"));
             Holdfast second = Holdfast.connect(servers.uri("prefix=failover:&timeout=1s"))) {
            String name = "failover/replicated";
            servers.replica.pause(); // connected, but acknowledges nothing
            assertThatThrownBy(() -> first.lock(name).tryAcquire()).as("acquire while no replica can acknowledge")
                    .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("replicas");
            assertThat(servers.master.call("EXISTS", "failover:{" + name + "}")).as("lock key left on the master").isEqualTo(0L);

            servers.replica.resume();
            awaitField(servers.replica, "replication", "master_link_status", "up");
            Hold held = first.lock(name, Duration.ofSeconds(6), true).acquire(Duration.ofSeconds(10));
            CountDownLatch lost = new CountDownLatch(1);
            held.onLost((h, why) -> lost.countDown());
            assertThat(servers.replica.call("EXISTS", "failover:{" + name + "}")).as("the replica has the acquisition").isEqualTo(1L);

            servers.master.kill();
            awaitFailover(servers);
            awaitReachable(second, name); // Lettuce reconnects to the promoted master in its own time
            Optional<io.holdfast.Hold> refused = second.lock(name).tryAcquire(Duration.ofSeconds(1));
            Optional<LockInfo> seen = second.admin().status(name);
            boolean lostInTime = lost.await(30, TimeUnit.SECONDS);
            System.out.printf("failover with waitReplicas=1: unacknowledged acquire refused; acknowledged hold (token %d) survived the "
                            + "failover: another client refused=%s, promoted master shows token %s; with no replica left the hold was "
                            + "reported lost: %s%n", held.fencingToken(), refused.isEmpty(), seen.map(LockInfo::fencingToken).orElse(null),
                    lostInTime);
            assertThat(refused).as("another client's acquire on the promoted master").isEmpty();
            assertThat(seen).hasValueSatisfying(info -> {
                assertThat(info.held()).isTrue();
                assertThat(info.fencingToken()).isEqualTo(held.fencingToken());
            });
            assertThat(lostInTime).as("renewals without a replica to acknowledge them end the hold loudly").isTrue();
        }
    }

    private static void awaitFailover(SentinelServers servers) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (servers.masterPort() == servers.replica.port && "master".equals(servers.replica.infoField("replication", "role"))) {
                return;
            }
            RedisServer.sleep(100);
        }
        throw new AssertionError("no failover within 60s; sentinel log:\n" + servers.sentinel.log());
    }

    /** Until {@code client} answers through Sentinel's current master (bounded: 30 s). */
    private static void awaitReachable(Holdfast client, String name) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                client.admin().status(name);
                return;
            } catch (StoreUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the client did not reach the promoted master within 30 s", e);
                }
                RedisServer.sleep(100);
            }
        }
    }

    private static void awaitField(RedisServer server, String section, String field, String value) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (value.equals(server.infoField(section, field))) {
                return;
            }
            RedisServer.sleep(50);
        }
        throw new AssertionError(field + " of " + server.address() + " never became " + value + ": " + server.info(section));
    }
}
