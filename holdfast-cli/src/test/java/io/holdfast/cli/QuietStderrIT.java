package io.holdfast.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Trial B4, B6 and B10 as real processes: a failing store gives one "holdfast:" line on stderr and its exit
 * status; the drivers' and the pool's own log lines (java.util.logging and SLF4J) stay out of it.
 */
@Timeout(120)
class QuietStderrIT {
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
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
    void aPostgresPortOutOfRangeIsOneUsageLineWithoutTheDriversWarning() throws Exception {
        CliProcesses.Running r = cli.run("status", "--uri", "jdbc:postgresql://127.0.0.1:99999/test?user=postgres", "x");
        assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCodes.USAGE);
        assertThat(r.stderr().lines()).as("%s", r).hasSize(1).allMatch(l -> l.startsWith("holdfast: JDBC URI"));
    }

    @Test
    void aMissingDatabaseIsOneConfigurationLine() throws Exception {
        CliProcesses.Running pg = cli.run("status", "--uri", "jdbc:postgresql://127.0.0.1:5432/hf_nosuchdb?user=postgres", "x");
        assertThat(pg.exitCode()).as("%s", pg).isEqualTo(ExitCodes.CONFIG);
        assertThat(pg.stderr().lines()).as("%s", pg).hasSize(1);
        CliProcesses.Running maria = cli.run("status", "--uri", "jdbc:mariadb://127.0.0.1:3306/hf_nosuchdb?user=root", "x");
        assertThat(maria.exitCode()).as("%s", maria).isEqualTo(ExitCodes.CONFIG);
        assertThat(maria.stderr().lines()).as("%s", maria).hasSize(1).allMatch(l -> l.startsWith("holdfast: mariadb store at"));
    }

    @Test
    void aSuccessfulRunOnPostgresWritesNothingToStderr() throws Exception {
        CliProcesses.Running r = cli.run("run", "--uri", PG, "quiet/it", "--", "true");
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.stderr()).as("%s", r).isEmpty();
    }
}
