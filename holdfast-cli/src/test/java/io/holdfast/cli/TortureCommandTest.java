package io.holdfast.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code holdfast torture} argument handling, in process: every case is refused before a client process
 * starts, so the report directory stays without a history.
 */
class TortureCommandTest {
    @TempDir
    Path dir;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = HoldfastCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void anUnknownFaultIsAUsageErrorThatNamesTheFaults() {
        assertThat(run("torture", "--report", dir.toString(), "--faults", "kill,meteor")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("'meteor'").contains("kill, pause, restart, partition");
        assertThat(Files.exists(dir.resolve("history"))).isFalse();
    }

    @Test
    void anUnknownTopologyOrATopologyWithAUriIsAUsageError() {
        assertThat(run("torture", "--report", dir.toString(), "--topology", "mesh")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("'mesh'").contains("etcd3, zk3, sentinel, redlock5, rediscluster");
        assertThat(run("torture", "--report", dir.toString(), "--topology", "zk3", "--uri", "redis://127.0.0.1:6379")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("--topology and --uri do not go together");
        assertThat(run("torture", "--report", dir.toString(), "--threads", "17")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("allowed: 1 to 16");
        assertThat(run("torture", "--report", dir.toString(), "--permits", "65")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("permits 65 is not allowed; allowed: 1 (the lock) to 64 (a semaphore)");
        assertThat(Files.exists(dir.resolve("history"))).isFalse();
    }

    @Test
    void recipesGoOneAtATime() {
        assertThat(run("torture", "--report", dir.toString(), "--rw", "--leader")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("--rw and --leader are not allowed together");
        assertThat(run("torture", "--report", dir.toString(), "--rw", "--permits", "2")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("permits 2 is not allowed with READ_WRITE; allowed: permits only with the lock");
        assertThat(run("torture", "--report", dir.toString(), "--leader", "--permits", "3")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("permits 3 is not allowed with LEADER");
        assertThat(Files.exists(dir.resolve("history"))).isFalse();
    }

    @Test
    void clientsOutOfRangeIsAUsageErrorThatSaysTheRange() {
        assertThat(run("torture", "--report", dir.toString(), "--clients", "0")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("1 to 32");
    }

    @Test
    void aClockSkewThatIsNotClientColonSignedSecondsOrNamesNoClientIsAUsageError() {
        assertThat(run("torture", "--report", dir.toString(), "--clock-skew", "2:30")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("'2:30'").contains("2:+30s,3:-30s");
        assertThat(run("torture", "--report", dir.toString(), "--clock-skew", "2:+30s,9:-30s")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("client number from 1 to 4");
        assertThat(Files.exists(dir.resolve("history"))).isFalse();
    }

    @Test
    void aStoreStopCommandWithoutAStartCommandIsAUsageError() {
        assertThat(run("torture", "--report", dir.toString(), "--store-stop", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("--store-stop and --store-start go together");
    }

    @Test
    void anUnreachableStoreExits69BeforeAnyClientStarts() {
        assertThat(run("torture", "--report", dir.toString(), "--uri", "jdbc:postgresql://127.0.0.1:1/nowhere?connectTimeout=1s"))
                .isEqualTo(ExitCodes.STORE_UNAVAILABLE);
        assertThat(err.toString()).contains("127.0.0.1:1");
        assertThat(Files.exists(dir.resolve("report.txt"))).isFalse();
    }

    @Test
    void helpDescribesTheFaultsAndTheExitStatus() {
        assertThat(run("torture", "--help")).isZero();
        assertThat(out.toString()).contains("--faults").contains("SIGSTOP").contains("--report").contains("Exit status");
    }
}
