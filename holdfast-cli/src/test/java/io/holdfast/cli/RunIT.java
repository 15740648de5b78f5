package io.holdfast.cli;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.holdfast.cli.CliProcesses.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code holdfast run} as a real process against a SQLite file of its own per test. */
class RunIT {
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

    @Test
    void eightConcurrentRunsIncrementingACounterByReadSleepWriteKeepItExact() throws Exception {
        Path counter = dir.resolve("counter");
        Path tokens = dir.resolve("tokens");
        Files.writeString(counter, "0\n");
        String script = "n=$(cat \"$1\"); sleep 0.2; echo $((n + 1)) > \"$1\"; echo \"$HOLDFAST_FENCING_TOKEN\" >> \"$2\"";
        List<CliProcesses.Running> runs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            runs.add(cli.start("run", "--uri", uri, "--wait", "60s", "counter", "--",
                    "sh", "-c", script, "sh", counter.toString(), tokens.toString()));
        }
        for (CliProcesses.Running r : runs) {
            assertThat(r.await()).as("%s", r).isZero();
        }

        assertThat(Files.readString(counter).trim()).isEqualTo("8");
        List<String> seen = Files.readAllLines(tokens);
        assertThat(seen).hasSize(8);
        assertThat(new HashSet<>(seen)).as("every holder got its own fencing token").hasSize(8);
    }

    @Test
    void sigkilledRunFreesItsLockWithinItsLeaseAndItsCommandIsTerminated() throws Exception {
        Path childPid = dir.resolve("child.pid");
        CliProcesses.Running run = cli.start("run", "--uri", uri, "--lease", "3s", "job", "--",
                "sh", "-c", "echo $$ > \"$1\"; exec sleep 120", "sh", childPid.toString());
        assertThat(eventually(CliProcesses.TIMEOUT, () -> Files.exists(childPid) && read(childPid).endsWith("\n")))
                .as("the command started: %s", run).isTrue();
        long pid = Long.parseLong(read(childPid).trim());

        run.process.destroyForcibly(); // SIGKILL: no release, no shutdown hook
        run.process.waitFor();

        try (Holdfast holdfast = Holdfast.connect(uri)) {
            assertThat(holdfast.lock("job").tryAcquire()).as("still held right after the kill: nobody released it").isEmpty();
            // Frees when the 3 s lease runs out; the extra 5 s covers polling and a slow machine.
            Optional<Hold> taken = holdfast.lock("job").tryAcquire(Duration.ofSeconds(3 + 5));
            assertThat(taken).as("free within the lease").isPresent();
            taken.get().close();
        }
        assertThat(eventually(Duration.ofSeconds(30), () -> CliProcesses.isGone(pid)))
                .as("the command got its parent-death signal").isTrue();
    }

    @Test
    void exitsWithTheCommandsStatusAndGivesItTheLockNameAndAGrowingFencingToken() throws Exception {
        Path seen = dir.resolve("seen");
        String script = "echo \"$HOLDFAST_LOCK $HOLDFAST_FENCING_TOKEN\" >> \"$1\"; exit 3";
        CliProcesses.Running first = cli.run("run", "--uri", uri, "orders/42", "--", "sh", "-c", script, "sh", seen.toString());
        CliProcesses.Running second = cli.run("run", "--uri", uri, "orders/42", "--", "sh", "-c", script, "sh", seen.toString());

        assertThat(first.exitCode()).as("%s", first).isEqualTo(3);
        assertThat(second.exitCode()).as("%s", second).isEqualTo(3);
        List<String> lines = Files.readAllLines(seen);
        assertThat(lines).hasSize(2).allMatch(l -> l.matches("orders/42 [0-9]+"));
        long t1 = Long.parseLong(lines.get(0).split(" ")[1]);
        long t2 = Long.parseLong(lines.get(1).split(" ")[1]);
        assertThat(t1).isPositive();
        assertThat(t2).isGreaterThan(t1);
    }

    @Test
    void exits75WhenTheLockIsHeldAndSaysByWhom() throws Exception {
        try (Holdfast holdfast = Holdfast.connect(uri); Hold hold = holdfast.lock("busy").acquire(Duration.ofSeconds(10))) {
            CliProcesses.Running noWait = cli.run("run", "--uri", uri, "busy", "--", "true");
            CliProcesses.Running shortWait = cli.run("run", "--uri", uri, "--wait", "500ms", "busy", "--", "true");

            assertThat(noWait.exitCode()).as("%s", noWait).isEqualTo(ExitCodes.NOT_ACQUIRED);
            assertThat(noWait.stderr()).contains("'busy'").contains(":" + ProcessHandle.current().pid())
                    .contains("token " + hold.fencingToken());
            assertThat(shortWait.exitCode()).as("%s", shortWait).isEqualTo(ExitCodes.NOT_ACQUIRED);
            assertThat(shortWait.stderr()).contains("not acquired within 500ms");
            assertThat(hold.isValid()).isTrue();
        }
    }

    @Test
    void conflictExitCodeIsTheStatusWhenTheLockIsBusyAndNothingRuns() throws Exception {
        Path ran = dir.resolve("ran");
        try (Holdfast holdfast = Holdfast.connect(uri); Hold hold = holdfast.lock("busy").acquire(Duration.ofSeconds(10))) {
            CliProcesses.Running skip = cli.run("run", "--uri", uri, "-E", "0", "busy", "--", "touch", ran.toString());
            CliProcesses.Running timedOut = cli.run("run", "--uri", uri, "--wait", "300ms", "--conflict-exit-code", "3", "busy",
                    "--", "touch", ran.toString());

            assertThat(skip.exitCode()).as("%s", skip).isZero();
            assertThat(skip.stderr()).contains("'busy' is taken");
            assertThat(timedOut.exitCode()).as("%s", timedOut).isEqualTo(3);
            assertThat(timedOut.stderr()).contains("not acquired within 300ms");
            assertThat(ran).as("the command never ran").doesNotExist();
            assertThat(hold.isValid()).isTrue();
        }
        // Once the lock is free, -E does not change the command's own status.
        CliProcesses.Running free = cli.run("run", "--uri", uri, "-E", "0", "busy", "--", "sh", "-c", "touch \"$1\"; exit 5",
                "sh", ran.toString());
        assertThat(free.exitCode()).as("%s", free).isEqualTo(5);
        assertThat(ran).exists();
    }

    @Test
    void exits64ForABadDurationSayingWhatIsAllowed() throws Exception {
        CliProcesses.Running r = cli.run("run", "--uri", uri, "--wait", "ten", "job", "--", "true");

        assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCodes.USAGE);
        assertThat(r.stderr()).contains("'ten'").contains("500ms, 10s, 5m");
        assertThat(r.stdout()).isEmpty();
    }

    @Test
    void exits69WhenTheStoreIsUnreachable() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        CliProcesses.Running r = cli.run("run", "--uri", "jdbc:postgresql://127.0.0.1:" + port + "/x", "job", "--", "true");

        assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCodes.STORE_UNAVAILABLE);
        assertThat(r.stderr()).contains("postgresql").contains("127.0.0.1:" + port);
    }

    @Test
    void exits127WhenTheCommandCannotBeStarted() throws Exception {
        CliProcesses.Running r = cli.run("run", "--uri", uri, "job", "--", "holdfast-test-no-such-command");

        assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCodes.CANNOT_START);
        assertThat(r.stderr()).contains("holdfast-test-no-such-command");
    }

    @Test
    void sigtermReachesTheCommandAndTheLockIsReleasedAfterItExits() throws Exception {
        signalIsPassedOn("TERM", 7);
    }

    @Test
    void sigintReachesTheCommandAndTheLockIsReleasedAfterItExits() throws Exception {
        signalIsPassedOn("INT", 9);
    }

    private void signalIsPassedOn(String signal, int childStatus) throws Exception {
        Path started = dir.resolve("started");
        Path got = dir.resolve("got");
        // A long lease: the lock is free afterwards only because holdfast released it.
        CliProcesses.Running run = cli.start("run", "--uri", uri, "--lease", "60s", "job", "--", "sh", "-c",
                "trap 'echo " + signal + " > \"$2\"; exit " + childStatus + "' " + signal + "; touch \"$1\"; "
                        + "i=0; while [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done",
                "sh", started.toString(), got.toString());
        assertThat(eventually(CliProcesses.TIMEOUT, () -> Files.exists(started))).as("%s", run).isTrue();

        CliProcesses.signal(run.pid(), signal);

        assertThat(run.await()).as("%s", run).isEqualTo(childStatus);
        assertThat(read(got).trim()).isEqualTo(signal);
        try (Holdfast holdfast = Holdfast.connect(uri)) {
            Optional<Hold> hold = holdfast.lock("job").tryAcquire();
            assertThat(hold).as("released, not left to its 60s lease").isPresent();
            hold.get().close();
        }
    }

    @Test
    void forcedReleaseMakesARunningRunTerminateItsCommandAndExit76() throws Exception {
        Path started = dir.resolve("started");
        Path got = dir.resolve("got");
        CliProcesses.Running run = cli.start("run", "--uri", uri, "--lease", "3s", "job", "--", "sh", "-c",
                "trap 'echo TERM > \"$2\"; exit 5' TERM; touch \"$1\"; i=0; while [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done",
                "sh", started.toString(), got.toString());
        assertThat(eventually(CliProcesses.TIMEOUT, () -> Files.exists(started))).as("%s", run).isTrue();

        CliProcesses.Running release = cli.run("release", "--force", "--uri", uri, "job");
        assertThat(release.exitCode()).as("%s", release).isZero();
        assertThat(release.stdout()).contains("released 'job'").contains(":" + run.pid());

        assertThat(run.await()).as("%s", run).isEqualTo(ExitCodes.HOLD_LOST);
        assertThat(read(got).trim()).as("the command got SIGTERM").isEqualTo("TERM");
        assertThat(run.stderr()).contains("lost the hold on 'job'");
    }

    @Test
    void theDefaultStoreComesFromHoldfastUri() throws Exception {
        Path seen = dir.resolve("seen");
        CliProcesses.Running r = cli.start(Map.of("HOLDFAST_URI", uri), "run", "envjob", "--", "sh", "-c",
                "echo \"$HOLDFAST_FENCING_TOKEN\" > \"$1\"", "sh", seen.toString());
        assertThat(r.await()).as("%s", r).isZero();

        try (Holdfast holdfast = Holdfast.connect(uri)) {
            assertThat(holdfast.admin().status("envjob")).as("the run used the store in HOLDFAST_URI")
                    .hasValueSatisfying(info -> assertThat(info.fencingToken()).isEqualTo(Long.parseLong(read(seen).trim())));
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return "";
        }
    }
}
