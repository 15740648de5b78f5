package io.holdfast.torture;

import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.Topology;
import io.holdfast.testkit.torture.TortureResult;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The torture run on Redis topologies, each server and each client process in its own network namespace.
 * <ul>
 * <li>Sentinel (master, replica, 3 Sentinels, no persistence): the master cut off (the Sentinels promote
 * the replica), killed (it comes back empty), frozen, its clock stepped two leases ahead while the holder works
 * (every key on it expires at once: a second holder is the limit the README documents for a stepped clock). Replication is asynchronous, so a second holder is a
 * limit holdfast-redis's README documents ("What exclusion means here"): as for the single Redis server,
 * this test asserts what fencing guarantees, and the report says what the lock let through.</li>
 * <li>Redis Cluster (3 masters, 3 replicas): the same faults on the master of the lock's slot, the same
 * documented limit, the same assertions.</li>
 * <li>Redlock over 5 masters: the holder cut off from 2 masters, one master killed, one frozen, one's clock stepped
 * two leases ahead (its keys expire at once). A minority is
 * affected each time, so no two valid holds may overlap. And the holder cut off from all 5 one way only (deaf:
 * its renewals land, the answers are lost; mute: nothing it sends lands) while it works on: it must know its hold
 * invalid before another client can be granted the lock. The killed master comes back empty only after the
 * lease has run out ({@link #REDLOCK_RESTART_DELAY}): Redlock without {@code appendfsync always} is safe only with
 * such delayed restarts (the algorithm's own requirement; holdfast-redis's README, Redlock limits): a master back
 * within the lease can let a second majority form beside a holder whose bare majority included it, a documented
 * limit no client can see, so this test does not provoke it. (With a 1 s restart this test found a client bug:
 * a retried give-back freed a waiter's later grant; see RedlockGiveBackTest.)</li>
 * </ul>
 * Client processes 1 and 3 run three threads sharing one client, 2 and 4 one; client 2's wall clock runs
 * 30 s ahead and client 3's 30 s behind (libfaketime), which must change nothing: Redis expires keys by its
 * own clock. Needs root, iproute2, nftables, redis-server and libfaketime (scripts/services installs them).
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class RedisTopologyTortureTest {
    static final Set<Fault> SENTINEL_FAULTS = EnumSet.of(Fault.LEADER_PARTITION, Fault.LEADER_KILL, Fault.LEADER_PAUSE, Fault.PAUSE,
            Fault.LEADER_CLOCK_STEP);
    static final Set<Fault> REDLOCK_FAULTS = EnumSet.of(Fault.MINORITY_PARTITION, Fault.ONE_WAY_PARTITION, Fault.LEADER_KILL, Fault.LEADER_PAUSE,
            Fault.PAUSE, Fault.LEADER_CLOCK_STEP);
    /** The runs' lease. */
    static final Duration LEASE = Duration.ofSeconds(2);
    /** A killed Redlock master stays down past every lease it granted (delayed restart). */
    static final Duration REDLOCK_RESTART_DELAY = LEASE.plusSeconds(1);

    @AfterEach
    void noNamespaceOfThisJvmIsLeft() throws Exception {
        TortureRuns.assertNoNamespaceOfThisJvmIsLeft();
    }

    @Test
    void sentinelFencedCounterStaysExactThroughFailovers() throws Exception {
        TortureResult r = run(Topology.REDIS_SENTINEL, SENTINEL_FAULTS, Duration.ofSeconds(1));
        TortureRuns.assertFencedCounterExactUnderEveryFault(r, SENTINEL_FAULTS);
        TortureRuns.assertSkewedClientsTookPart(r);
        assertThat(aimedAt(r, Fault.LEADER_PARTITION)).as("the leader partition cut off the master the Sentinels named").matches("server s[12] \\(master\\)");
        assertThat(aimedAt(r, Fault.LEADER_CLOCK_STEP)).as("the clock step hit the master the Sentinels named").matches("server s[12] \\(master\\)");
        String sentinelLog = Files.readString(r.textReport().resolveSibling("servers").resolve("sen1.log"));
        assertThat(sentinelLog).as("the Sentinels failed over at least once (sen1.log)").contains("+switch-master " + "holdfast");
    }

    @Test
    void redisClusterFencedCounterStaysExactThroughFailovers() throws Exception {
        TortureResult r = run(Topology.REDIS_CLUSTER, SENTINEL_FAULTS, Duration.ofSeconds(1));
        TortureRuns.assertFencedCounterExactUnderEveryFault(r, SENTINEL_FAULTS);
        TortureRuns.assertSkewedClientsTookPart(r);
        assertThat(aimedAt(r, Fault.LEADER_PARTITION)).as("the leader partition cut off the master of the lock's slot")
                .matches("server s\\d \\(master of the lock's slot\\)");
        String logs = "";
        for (int i = 1; i <= 6; i++) {
            logs += Files.readString(r.textReport().resolveSibling("servers").resolve("s" + i + ".log"));
        }
        assertThat(logs).as("a replica won a failover election (servers/s*.log)").contains("Failover election won");
    }

    @Test
    void redlockOverFiveMastersKeepsExclusionWhenAMinorityFails() throws Exception {
        TortureResult r = run(Topology.REDLOCK5, REDLOCK_FAULTS, REDLOCK_RESTART_DELAY);
        TortureRuns.assertFencedCounterExactUnderEveryFault(r, REDLOCK_FAULTS);
        assertThat(r.violations()).as("mutual-exclusion violations (report: %s)", r.textReport()).isEmpty();
        TortureRuns.assertSkewedClientsTookPart(r);
        String faults = Files.readString(r.textReport().resolveSibling("faults.tsv"));
        assertThat(faults).as("faults.tsv: the minority partition cut one client off from s4 and s5 only").containsPattern("\tc\\d \\| s4,s5\n");
        TortureRuns.assertOneWayPartitionCutAClientFromEveryServer(r, "s1,s2,s3,s4,s5");
        TortureRuns.assertTimelineOutlinesCutOffLanes(r, 2); // the minority and the one-way partitions
        assertThat(aimedAt(r, Fault.LEADER_CLOCK_STEP)).as("the clock step hit one master, s1 while it lives").matches("server s\\d \\(one master of 5\\)");
    }

    private static String aimedAt(TortureResult r, Fault f) {
        return r.injected().stream().filter(w -> w.fault() == f).map(FaultWindow::target).findFirst().orElse("");
    }

    static TortureResult run(Topology topology, Set<Fault> faults, Duration restartDowntime) throws Exception {
        return TortureRuns.run(TortureRuns.topology(topology, faults).restartDowntime(restartDowntime).build(), null);
    }
}
