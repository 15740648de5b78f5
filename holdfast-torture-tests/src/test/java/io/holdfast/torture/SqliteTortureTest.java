package io.holdfast.torture;

import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.TortureResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
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
}
