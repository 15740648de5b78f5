package io.holdfast.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.holdfast.cli.CliProcesses.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code holdfast lead} as real processes against a SQLite file of its own per test. */
class LeadIT {
    @TempDir
    Path dir;
    private CliProcesses cli;
    private String uri;

    @BeforeEach
    void setUp() {
        cli = new CliProcesses(dir);
        uri = "sqlite:" + dir.resolve("locks.db");
    }

    @AfterEach
    void tearDown() {
        cli.close();
    }

    /** Two candidates: one leads and runs its command, resigns when it exits, then the other; statuses pass through. */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void twoCandidatesRunTheirCommandsOneAfterTheOtherWithIncreasingTerms() throws Exception {
        Path log = dir.resolve("log");
        String script = "echo \"begin $HOLDFAST_LOCK $HOLDFAST_FENCING_TOKEN\" >> \"$1\"; sleep 0.5; "
                + "echo \"end $HOLDFAST_FENCING_TOKEN\" >> \"$1\"; exit 3";
        CliProcesses.Running first = cli.start("lead", "--uri", uri, "cron/leader", "--", "sh", "-c", script, "sh", log.toString());
        CliProcesses.Running second = cli.start("lead", "--uri", uri, "cron/leader", "--", "sh", "-c", script, "sh", log.toString());

        assertThat(first.await()).as("%s", first).isEqualTo(3);
        assertThat(second.await()).as("%s", second).isEqualTo(3);
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).as("the commands' log").hasSize(4);
        assertThat(lines.get(0)).matches("begin cron/leader [0-9]+");
        long t1 = Long.parseLong(lines.get(0).split(" ")[2]);
        assertThat(lines.get(1)).as("the first leader ends before the second begins").isEqualTo("end " + t1);
        assertThat(lines.get(2)).matches("begin cron/leader [0-9]+");
        long t2 = Long.parseLong(lines.get(2).split(" ")[2]);
        assertThat(t2).as("the second term").isGreaterThan(t1);
        assertThat(lines.get(3)).isEqualTo("end " + t2);
        assertThat(first.stderr() + second.stderr()).as("holdfast's own stderr").isEmpty();
    }

    /** A leader force-released by an operator has its command terminated (SIGTERM) and exits 76. */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aForceReleasedLeaderHasItsCommandTerminatedAndExits76() throws Exception {
        Path started = dir.resolve("started");
        Path got = dir.resolve("got");
        CliProcesses.Running lead = cli.start("lead", "--uri", uri, "--lease", "3s", "job", "--", "sh", "-c",
                "trap 'echo TERM > \"$2\"; exit 5' TERM; touch \"$1\"; i=0; while [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done",
                "sh", started.toString(), got.toString());
        assertThat(eventually(CliProcesses.TIMEOUT, () -> Files.exists(started))).as("%s", lead).isTrue();

        CliProcesses.Running release = cli.run("release", "--force", "--uri", uri, "job");
        assertThat(release.exitCode()).as("%s", release).isZero();

        assertThat(lead.await()).as("%s", lead).isEqualTo(ExitCodes.HOLD_LOST);
        assertThat(read(got).trim()).as("the command got SIGTERM").isEqualTo("TERM");
        assertThat(lead.stderr()).contains("lost the leadership of 'job'").contains("was terminated (status 5)");
    }

    /**
     * A leader killed with SIGKILL: its command gets its parent-death signal, and the waiting candidate is elected
     * once the lease runs out, with a greater term.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aKilledLeaderIsSucceededByTheWaitingCandidateOnceItsLeaseRunsOut() throws Exception {
        Path firstTerm = dir.resolve("first");
        Path secondTerm = dir.resolve("second");
        CliProcesses.Running first = cli.start("lead", "--uri", uri, "--lease", "2s", "job", "--", "sh", "-c",
                "echo \"$HOLDFAST_FENCING_TOKEN $$\" > \"$1.tmp\"; mv \"$1.tmp\" \"$1\"; exec sleep 120", "sh", firstTerm.toString());
        assertThat(eventually(CliProcesses.TIMEOUT, () -> Files.exists(firstTerm))).as("%s", first).isTrue();
        String[] firstLine = read(firstTerm).trim().split(" ");
        long commandPid = Long.parseLong(firstLine[1]);
        CliProcesses.Running second = cli.start("lead", "--uri", uri, "--lease", "2s", "job", "--", "sh", "-c",
                "echo \"$HOLDFAST_FENCING_TOKEN\" > \"$1\"", "sh", secondTerm.toString());
        assertThat(Files.exists(secondTerm)).as("the second ran while the first leads").isFalse();

        first.process.destroyForcibly(); // SIGKILL: no resignation
        first.process.waitFor();

        assertThat(second.await()).as("%s", second).isZero();
        assertThat(Long.parseLong(read(secondTerm).trim())).as("the successor's term").isGreaterThan(Long.parseLong(firstLine[0]));
        assertThat(eventually(CliProcesses.TIMEOUT, () -> CliProcesses.isGone(commandPid)))
                .as("the killed leader's command got its parent-death signal").isTrue();
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
