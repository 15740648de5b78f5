package io.holdfast.torture;

import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.TortureResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
        assertThat(mostHoldsAtOnce(r.textReport().resolveSibling("history.tsv"))).as("holds at once").isGreaterThanOrEqualTo(2);
    }

    /** The most holds in force at once in a merged history: from an acquire's completion to its release's invocation. */
    private static int mostHoldsAtOnce(Path history) throws Exception {
        Map<String, long[]> spans = new HashMap<>(); // token -> {granted, released}
        for (String line : Files.readAllLines(history)) {
            String[] f = line.split("\t");
            if (line.startsWith("#") || f.length < 6) {
                continue;
            }
            if (f[3].equals("acquire") && f[4].equals("ok")) {
                spans.put(f[5], new long[] {Long.parseLong(f[0]), Long.MAX_VALUE});
            } else if (f[3].equals("release") && f[4].equals("invoke") && spans.containsKey(f[5])) {
                spans.get(f[5])[1] = Long.parseLong(f[0]);
            }
        }
        List<long[]> changes = new ArrayList<>(); // {time, +1 or -1}, ends before starts at the same time
        spans.values().forEach(s -> {
            changes.add(new long[] {s[0], 1});
            changes.add(new long[] {s[1], -1});
        });
        changes.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int now = 0;
        int most = 0;
        for (long[] c : changes) {
            now += (int) c[1];
            most = Math.max(most, now);
        }
        return most;
    }
}
