package io.holdfast.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code holdfast torture} run for real from the shaded jar: its client processes are started from the
 * same jar, faults are injected, and the reports land in {@code --report}.
 */
class TortureIT {
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
    void aShortRunOnTheEmbeddedDefaultKillsAndPausesHoldersAndReportsAnExactFencedCounter() throws Exception {
        Path report = dir.resolve("report");
        CliProcesses.Running torture = cli.run("torture", "--clients", "3", "--duration", "16s", "--faults", "pause,kill,restart",
                "--report", report.toString(), "--seed", "7");

        assertThat(torture.exitCode()).as("%s", torture).isZero();
        String out = torture.stdout();
        assertThat(out).contains("Holdfast torture report").contains("Verdict:")
                .contains("OK  with the fencing guard: 0 lost updates")
                .contains("restart not injected: the harness did not start this store");
        assertThat(out).containsPattern("\\n  \\d+\\.\\ds +pause +client \\d");
        assertThat(torture.stderr()).contains("torture: pause client");
        assertThat(Files.readString(report.resolve("report.html"))).contains("<svg id=\"timeline\"");
        assertThat(Files.readString(report.resolve("report.txt"))).isEqualTo(out);
        assertThat(Files.lines(report.resolve("history.tsv")).filter(l -> l.contains("\tacquire\tok\t")).count()).isGreaterThan(10);
    }
}
