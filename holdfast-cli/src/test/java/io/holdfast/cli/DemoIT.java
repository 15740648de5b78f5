package io.holdfast.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code holdfast demo} run for real: buyer processes, a stock table, a frozen lock holder. */
class DemoIT {
    @TempDir
    Path dir;
    private CliProcesses cli;

    @BeforeEach
    void setUp() {
        cli = new CliProcesses(dir);
    }

    @AfterEach
    void tearDown() {
        cli.close();
    }

    @Test
    void onTheEmbeddedDefaultTheTableShowsTheRaceTheExactLockedSaleAndTheRejectedStaleWrite() throws Exception {
        CliProcesses.Running demo = cli.run("demo");

        assertThat(demo.exitCode()).as("%s", demo).isZero();
        String out = demo.stdout();
        long[] unlocked = row(out, "1 no lock");
        long[] locked = row(out, "2 holdfast lock");
        long[] fenced = row(out, "3 paused holder + fencing");
        // columns: attempts, recorded, sold, final, oversold, lost updates, stale writes rejected
        if (unlocked[4] > 0 || unlocked[5] > 0) {
            assertThat(out).contains("sales were recorded for 5 items").contains(unlocked[4] + " oversold");
            assertThat(unlocked[1]).isGreaterThan(unlocked[2]);
        } else {
            assertThat(out).contains("saw no oversell");
        }
        assertThat(unlocked[5]).isEqualTo(unlocked[1] - unlocked[2]);
        assertThat(locked[1]).as("sales recorded under the lock").isEqualTo(5);
        assertThat(locked[2]).as("stock sold under the lock").isEqualTo(5);
        assertThat(locked[3]).isZero();
        assertThat(locked[4]).isZero();
        assertThat(locked[5]).isZero();
        assertThat(fenced[6]).as("stale writes rejected").isGreaterThanOrEqualTo(1);
        assertThat(fenced[4]).isZero();
        assertThat(fenced[5]).isZero();
        assertThat(out).contains("stale write was rejected");
        assertThat(demo.stderr()).contains("frozen (SIGSTOP)");
    }

    @Test
    void onPostgresqlItKeepsTheStockInTheSameDatabaseAndReportsJson() throws Exception {
        CliProcesses.Running demo = cli.run("demo", "--json", "--workers", "3", "--stock", "4",
                "--uri", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

        assertThat(demo.exitCode()).as("%s", demo).isZero();
        Map<String, Object> result = JsonReader.object(demo.stdout());
        assertThat(result).containsEntry("ok", true).containsEntry("stock", 4L).containsEntry("workers", 3L);
        assertThat((String) result.get("lockStore")).startsWith("postgresql");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> phases = (List<Map<String, Object>>) result.get("phases");
        assertThat(phases).hasSize(3);
        Map<String, Object> unlocked = phases.get(0);
        assertThat((Long) unlocked.get("lostUpdates")).isEqualTo((Long) unlocked.get("salesRecorded") - (Long) unlocked.get("stockSold"));
        assertThat(phases.get(1)).containsEntry("salesRecorded", 4L).containsEntry("stockSold", 4L)
                .containsEntry("oversold", 0L).containsEntry("lostUpdates", 0L);
        assertThat((Long) phases.get(2).get("staleWritesRejected")).isGreaterThanOrEqualTo(1L);
        assertThat(phases.get(2)).containsEntry("oversold", 0L).containsEntry("lostUpdates", 0L);
        assertThat(demo.stderr()).contains("stock table: jdbc:postgresql://127.0.0.1:5432/test");
    }

    private static long[] row(String out, String phase) {
        String line = out.lines().filter(l -> l.startsWith(phase + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no row '" + phase + "' in:\n" + out));
        String[] cells = line.substring(phase.length()).trim().split("\\s+");
        assertThat(cells).as(line).hasSize(7);
        long[] numbers = new long[cells.length];
        for (int i = 0; i < cells.length; i++) {
            numbers[i] = Long.parseLong(cells[i]);
        }
        return numbers;
    }
}
