package io.holdfast.torture;

import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.Topology;
import io.holdfast.testkit.torture.TortureResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The torture run on real clusters, each server and each client process in its own network namespace:
 * three etcd members, and a ZooKeeper ensemble of three server JVMs. Client processes 1 and 3 run three
 * threads sharing one client, 2 and 4 one. The faults are the cluster's: the leader cut off, the holder
 * cut off together with its follower while it works on (review finding Z1), the holder cut off from every
 * server one way only (deaf or mute) while it works on, the leader killed and
 * restarted, the leader frozen, a slow link on the leader, and a holder frozen past its lease. Client 2's
 * wall clock runs 30 s ahead and client 3's 30 s behind (libfaketime): expiry is the servers' business, so
 * that changes nothing. Both stores are linearizable: no two valid holds may overlap, tokens keep real-time
 * order, and every holder cut off or frozen past its lease is told. Needs root, iproute2, nftables and
 * libfaketime (scripts/services installs them).
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class ClusterTortureTest {
    static final Set<Fault> FAULTS = EnumSet.of(Fault.FOLLOWER_PARTITION, Fault.ONE_WAY_PARTITION, Fault.LEADER_PARTITION, Fault.LEADER_KILL,
            Fault.LEADER_PAUSE, Fault.SLOW_LINK, Fault.PAUSE);

    @AfterEach
    void noNamespaceOfThisJvmIsLeft() throws Exception {
        TortureRuns.assertNoNamespaceOfThisJvmIsLeft();
    }

    @Test
    void etcdClusterOfThree() throws Exception {
        check(run(Topology.ETCD3));
    }

    @Test
    void zooKeeperEnsembleOfThree() throws Exception {
        check(run(Topology.ZK3));
    }

    static TortureResult run(Topology topology) throws Exception {
        return TortureRuns.run(TortureRuns.topology(topology, FAULTS).build(), null);
    }

    static void check(TortureResult r) throws Exception {
        TortureRuns.assertFencedCounterExactUnderEveryFault(r, FAULTS);
        TortureRuns.assertLinearizableLock(r);
        TortureRuns.assertSkewedClientsTookPart(r);
        String faults = Files.readString(r.textReport().resolveSibling("faults.tsv"));
        assertThat(faults).as("faults.tsv names the sides of the holder-and-follower partition").containsPattern("\tc\\d,s\\d \\| ");
        TortureRuns.assertOneWayPartitionCutAClientFromEveryServer(r, "s1,s2,s3");
        TortureRuns.assertTimelineOutlinesCutOffLanes(r, 2); // the follower and the one-way partitions
        assertThat(r.acquisitions()).isGreaterThan(0);
        String history = Files.readString(r.textReport().resolveSibling("history.tsv"));
        assertThat(history).as("threads of one client process are actors of their own").containsPattern("\n\\d+\t1\t1\tacquire\tok\t\\d+\t0\t\t3\n");
    }
}
