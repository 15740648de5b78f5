package io.holdfast.redis;

import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.testkit.LoopbackProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Review finding 16 (../shared/reviews/core-jdbc-redis.md): with {@code waitReplicas}, the {@code WAIT} must
 * follow the write it confirms. Right after a failover or restart the master's script cache is empty: the
 * script's {@code EVALSHA} gets NOSCRIPT and the script runs again as {@code EVAL}. A {@code WAIT} pipelined
 * behind the {@code EVALSHA} reaches the master before that {@code EVAL}; if the replica has acknowledged
 * everything the master sent so far, it returns at once with 1, and the write is never confirmed. Here the
 * master's scripts are flushed and its one replica, once it has acknowledged everything, is frozen
 * (connected, acknowledging nothing): the acquire and the renewal must both fail for want of an
 * acknowledgement, and the refused acquisition must be given back. With the WAIT pipelined again (the code
 * before the fix), both tests fail: the acquire returns a grant, the renewal reports the hold renewed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicaWaitAfterNoscriptTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private RedisServer master;
    private RedisServer replica;
    private LoopbackProxy toMaster;
    private RedisLockStore store;

    @BeforeEach
    void start() {
        master = RedisServer.start();
        replica = RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(master.port));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!"up".equals(replica.infoField("replication", "master_link_status"))) {
            assertThat(System.nanoTime() < deadline).as("replica linked to its master within 60s").isTrue();
            RedisServer.sleep(50);
        }
        toMaster = new LoopbackProxy("127.0.0.1", master.port);
        store = (RedisLockStore) new RedisLockStoreProvider().open("redis://127.0.0.1:" + toMaster.port()
                + "?prefix=noscript:&timeout=2s&waitReplicas=1&waitTimeout=500ms");
    }

    @AfterEach
    void stop() {
        if (replica != null) {
            replica.resume();
        }
        for (AutoCloseable c : new AutoCloseable[] {store, toMaster, replica, master}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // the next closes still run
            }
        }
    }

    /**
     * Empties the master's script cache (as a restart or failover does), waits until the replica has acknowledged
     * everything the master sent (it acknowledges once a second), and freezes it. A {@code WAIT} then returns at
     * once with 1 if it covers no new write, and 0 after its timeout if it covers one. (While the replica still
     * owes an acknowledgement, for example of the master's last {@code REPLCONF GETACK}, a WAIT that covers no
     * new write also returns 0, and could not tell the two apart.)
     */
    private void flushScriptsAndFreezeTheReplica() throws Exception {
        assertThat(master.command("SCRIPT", "FLUSH")).isEqualTo("OK");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!replicaHasAcknowledgedEverything()) {
            assertThat(System.nanoTime() < deadline).as("the replica acknowledged the master's whole stream within 30s").isTrue();
            RedisServer.sleep(20);
        }
        replica.pause();
        // The master's replies now take 200 ms to reach the store, as over a slow network: a WAIT pipelined behind
        // the EVALSHA is surely sent before the NOSCRIPT reply gets back. (On loopback that reply may come back
        // before the client has sent the WAIT; then the EVAL goes first and a pipelined WAIT is right by luck.)
        toMaster.delayReplies(Duration.ofMillis(200));
    }

    private boolean replicaHasAcknowledgedEverything() {
        String sent = master.infoField("replication", "master_repl_offset");
        String replica0 = master.infoField("replication", "slave0"); // ip=...,port=...,state=online,offset=N,lag=0
        return sent != null && replica0 != null && replica0.contains("state=online") && replica0.contains(",offset=" + sent + ",");
    }

    @Test
    void anAcquireThatMetNoscriptIsConfirmedByTheReplicaOrGivenBack() throws Exception {
        Attempt warmUp = store.tryAcquire("noscript/warm-up", "owner-0", "test", LEASE);
        assertThat(warmUp.acquired()).as("acquire acknowledged by the running replica").isTrue();

        flushScriptsAndFreezeTheReplica();
        long evalsBefore = master.commandCalls("eval");
        assertThatThrownBy(() -> store.tryAcquire("noscript/acquire", "owner-1", "test", LEASE))
                .as("an acquire the frozen replica could not acknowledge")
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("only 0 of the 1 replicas asked for (waitReplicas) acknowledged the acquisition");
        assertThat(master.commandCalls("eval") - evalsBefore).as("the acquire script (and the give-back) ran by source, after NOSCRIPT")
                .isPositive();
        assertThat(master.call("EXISTS", "noscript:{noscript/acquire}")).as("the unconfirmed acquisition was given back").isEqualTo(0L);
    }

    @Test
    void aRenewalThatMetNoscriptIsConfirmedByTheReplicaOrFails() throws Exception {
        Attempt held = store.tryAcquire("noscript/renew", "owner-2", "test", LEASE);
        assertThat(held.acquired()).as("acquire acknowledged by the running replica").isTrue();

        flushScriptsAndFreezeTheReplica();
        long evalsBefore = master.commandCalls("eval");
        List<HoldRef> holds = List.of(new HoldRef("noscript/renew", "owner-2", held.fencingToken()));
        assertThatThrownBy(() -> store.renewEach(holds, LEASE))
                .as("a renewal the frozen replica could not acknowledge")
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("only 0 of 1 replicas acknowledged a renewal");
        assertThat(master.commandCalls("eval") - evalsBefore).as("the renew script ran by its source, after NOSCRIPT").isEqualTo(1);
    }
}
