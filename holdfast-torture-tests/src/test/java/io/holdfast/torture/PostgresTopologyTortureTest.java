package io.holdfast.torture;

import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.Topology;
import io.holdfast.testkit.torture.TortureResult;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The torture run on a PostgreSQL primary and streaming replica ({@code pg2}, {@code pg2sync}), each server and
 * each client process in its own network namespace; clients name both servers ({@code targetServerType=primary}).
 * Faults: the primary cut off from everyone, the primary killed (the harness promotes the standby; the old primary
 * comes back as a standby of the new one), a holder frozen past its lease.
 * <ul>
 * <li>Synchronous replication: a commit is acknowledged only once the standby has it, so the promoted standby has
 * every grant: a linearizable lock, asserted as on etcd and ZooKeeper.</li>
 * <li>Asynchronous replication: the promoted standby may miss the last commits, so a second holder or a repeated
 * token is a limit holdfast-jdbc's README documents; this test asserts that the failover happened and the run's
 * accounting adds up, and the report says what the lock let through.</li>
 * </ul>
 * Needs root, iproute2, nftables and PostgreSQL 15 (scripts/services installs them).
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class PostgresTopologyTortureTest {
    static final Set<Fault> FAULTS = EnumSet.of(Fault.LEADER_PARTITION, Fault.LEADER_KILL, Fault.PAUSE);

    @AfterEach
    void noNamespaceOfThisJvmIsLeft() throws Exception {
        TortureRuns.assertNoNamespaceOfThisJvmIsLeft();
    }

    @Test
    void synchronousReplicaPromotedAfterThePrimaryDiesKeepsTheLockLinearizable() throws Exception {
        TortureResult r = run(Topology.PG2_SYNC);
        TortureRuns.assertFencedCounterExactUnderEveryFault(r, FAULTS);
        TortureRuns.assertLinearizableLock(r);
    }

    @Test
    void asynchronousReplicaPromotedAfterThePrimaryDiesIsReported() throws Exception {
        TortureResult r = run(Topology.PG2);
        assertThat(r.acquisitions()).as("successful acquisitions").isGreaterThan(20);
        for (var register : r.registers()) {
            assertThat(register.unexplained()).as("%s increments no write accounts for", register.label()).isZero();
        }
    }

    private static TortureResult run(Topology topology) throws Exception {
        TortureResult r = TortureRuns.run(TortureRuns.topology(topology, FAULTS).build(), null);
        FaultWindow kill = r.injected().stream().filter(w -> w.fault() == Fault.LEADER_KILL).findFirst().orElseThrow(
                () -> new AssertionError("leader-kill was not injected (report: " + r.textReport() + ")"));
        assertThat(kill.target()).as("the primary was killed").matches("server s[12] \\(primary\\)");
        assertThat(kill.detail()).as("the standby was promoted, the old primary came back as its standby")
                .contains("promoted (pg_ctl promote)").contains("as a standby of the new primary");
        return r;
    }
}
