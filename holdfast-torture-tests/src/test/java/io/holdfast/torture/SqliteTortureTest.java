package io.holdfast.torture;

import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.TortureResult;
import io.holdfast.testkit.torture.TortureSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The torture run on the embedded default: a SQLite lock file, client processes on one host. There is no
 * server to restart and no network to cut, so the harness must say it skipped those two.
 */
class SqliteTortureTest {
    @TempDir
    Path dir;

    @Test
    void fencedCounterStaysExactUnderKillsAndPausesAndSkippedFaultsAreNamed() throws Exception {
        TortureResult r = TortureRuns.run(TortureRuns.settings("sqlite", "sqlite:" + dir.resolve("locks.db"),
                Fault.SINGLE_SERVER).build(), null);

        TortureRuns.assertFencedCounterExactUnderEveryFault(r, EnumSet.of(Fault.KILL, Fault.PAUSE));
        TortureRuns.assertLinearizableLock(r);
        assertThat(r.faults()).filteredOn(f -> f.skipReason() != null).extracting(f -> f.fault())
                .containsExactlyInAnyOrder(Fault.RESTART, Fault.PARTITION);
    }

    /**
     * The clients take one of 2 permits of a semaphore instead of the lock: never more than 2 valid holds at once,
     * tokens (the gate's) in real-time order, the fenced counter exact; and 2 holds did run at once, so the run
     * tested the semaphore, not a lock.
     */
    @Test
    void withTwoPermitsNeverMoreThanTwoValidHoldsUnderKillsAndPauses() throws Exception {
        TortureResult r = TortureRuns.run(TortureRuns.settings("sqlite-permits2", "sqlite:" + dir.resolve("permits.db"),
                EnumSet.of(Fault.KILL, Fault.PAUSE)).permits(2).duration(Duration.ofSeconds(15)).build(), null);

        TortureRuns.assertFencedCounterExactUnderEveryFault(r, EnumSet.of(Fault.KILL, Fault.PAUSE));
        TortureRuns.assertLinearizableLock(r);
        assertThat(Files.readString(r.textReport())).contains("At most 2 holders (2 permits): OK");
        assertThat(TortureRuns.mostHoldsAtOnce(r.textReport().resolveSibling("history.tsv"))).as("holds at once").isGreaterThanOrEqualTo(2);
    }

    /**
     * Reads and writes of a read-write lock (a write one round in three): never a writer beside anyone, tokens (the
     * gate's) in real-time order, the fenced counter exact; and readers did share, and writes were taken.
     */
    @Test
    void aReadWriteLockNeverHasAWriterBesideAnyoneUnderKillsAndPauses() throws Exception {
        TortureResult r = TortureRuns.run(TortureRuns.settings("sqlite-rw", "sqlite:" + dir.resolve("rw.db"),
                EnumSet.of(Fault.KILL, Fault.PAUSE)).recipe(TortureSettings.Recipe.READ_WRITE).duration(Duration.ofSeconds(15)).build(), null);

        TortureRuns.assertReadWriteLockRun(r, EnumSet.of(Fault.KILL, Fault.PAUSE));
    }

    /** Candidates of an election, each resigning at its round's end: one leader at a time, never two in one term. */
    @Test
    void anElectionHasOneLeaderAtATimeUnderKillsAndPauses() throws Exception {
        TortureResult r = TortureRuns.run(TortureRuns.settings("sqlite-leader", "sqlite:" + dir.resolve("leader.db"),
                EnumSet.of(Fault.KILL, Fault.PAUSE)).recipe(TortureSettings.Recipe.LEADER).duration(Duration.ofSeconds(15)).build(), null);

        TortureRuns.assertLeaderRun(r, EnumSet.of(Fault.KILL, Fault.PAUSE));
    }
}
