package io.holdfast.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code ./holdfast} launcher at the repository root runs the built jar with stdout left to the tool. */
class LauncherIT {
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
    void launcherIsExecutableAndPassesArgumentsStdoutAndExitStatusThrough() throws Exception {
        assertThat(Files.isExecutable(CliProcesses.ROOT.resolve("holdfast"))).isTrue();
        String uri = "sqlite:" + dir.resolve("locks.db");

        CliProcesses.Running run = cli.startLauncher("run", "--uri", uri, "launched", "--", "sh", "-c",
                "echo \"token=$HOLDFAST_FENCING_TOKEN\"; exit 4");
        assertThat(run.await()).as("%s", run).isEqualTo(4);
        assertThat(run.stdout()).isEqualTo("token=1\n");

        CliProcesses.Running status = cli.startLauncher("status", "--json", "--uri", uri, "launched");
        assertThat(status.await()).as("%s", status).isZero();
        assertThat(JsonReader.object(status.stdout())).containsEntry("fencingToken", 1L).containsEntry("held", false);

        CliProcesses.Running usage = cli.startLauncher("run", "--uri", uri, "--lease", "forever", "x", "--", "true");
        assertThat(usage.await()).isEqualTo(ExitCodes.USAGE);
        assertThat(usage.stdout()).isEmpty();
    }
}
