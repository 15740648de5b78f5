package io.holdfast.cli;

import io.holdfast.Holdfast;
import io.holdfast.PermitHold;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code holdfast run --permits N}, {@code --shared} and {@code --exclusive} as real processes, on a SQLite file per test. */
class RunSharedIT {
    /**
     * Comes in (a directory per run), stays up to 3 s until another run is inside too (so that runs let in one at a
     * time show), records how many runs are inside, then stays a while.
     */
    private static final String INSIDE = "mkdir \"$1/in.$$\"; i=0; "
            + "while [ \"$(ls \"$1\" | grep -c '^in\\.')\" -lt 2 ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i+1)); done; "
            + "ls \"$1\" | grep -c '^in\\.' >> \"$2\"; echo \"$HOLDFAST_FENCING_TOKEN\" >> \"$3\"; sleep 0.3; rmdir \"$1/in.$$\"";

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

    /** Starts {@code count} runs with {@code how} (options before NAME) on NAME "pool"; returns the most inside at once. */
    private int mostInside(int count, List<String> tokens, String... how) throws Exception {
        Path inside = Files.createDirectories(dir.resolve("inside"));
        Path counts = dir.resolve("counts");
        Path tokenFile = dir.resolve("tokens");
        List<CliProcesses.Running> runs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            List<String> args = new ArrayList<>(List.of("run", "--uri", uri, "--wait", "60s"));
            args.addAll(List.of(how));
            args.addAll(List.of("pool", "--", "sh", "-c", INSIDE, "sh", inside.toString(), counts.toString(), tokenFile.toString()));
            runs.add(cli.start(args.toArray(String[]::new)));
        }
        for (CliProcesses.Running r : runs) {
            assertThat(r.await()).as("%s", r).isZero();
        }
        tokens.addAll(Files.readAllLines(tokenFile));
        return Files.readAllLines(counts).stream().mapToInt(l -> Integer.parseInt(l.trim())).max().orElse(0);
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void runsWithPermitsNeverExceedThemAndEachGetsItsOwnToken() throws Exception {
        List<String> tokens = new ArrayList<>();
        int most = mostInside(4, tokens, "--permits", "2");
        assertThat(most).as("runs inside at once with --permits 2: never more, and two at some time").isEqualTo(2);
        assertThat(tokens).hasSize(4);
        assertThat(new HashSet<>(tokens)).as("a token per run").hasSize(4);
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void sharedRunsShareAndAnExclusiveRunExcludesThem() throws Exception {
        try (Holdfast holdfast = Holdfast.connect(uri)) {
            PermitHold reading = holdfast.readWriteLock("pool").readLock().acquire(Duration.ofSeconds(10));
            CliProcesses.Running shared = cli.run("run", "--uri", uri, "--shared", "pool", "--", "true");
            CliProcesses.Running exclusive = cli.run("run", "--uri", uri, "--exclusive", "pool", "--", "true");
            CliProcesses.Running plain = cli.run("run", "--uri", uri, "pool", "--", "true");
            assertThat(shared.exitCode()).as("--shared beside a reader: %s", shared).isZero();
            assertThat(exclusive.exitCode()).as("--exclusive beside a reader: %s", exclusive).isEqualTo(ExitCodes.NOT_ACQUIRED);
            assertThat(exclusive.stderr()).contains("the write lock of 'pool' is taken");
            assertThat(plain.exitCode()).as("a plain run takes another lock: %s", plain).isZero();
            reading.close();

            PermitHold writing = holdfast.readWriteLock("pool").writeLock().acquire(Duration.ofSeconds(10));
            CliProcesses.Running waited = cli.run("run", "--uri", uri, "--shared", "--wait", "300ms", "pool", "--", "true");
            assertThat(waited.exitCode()).as("--shared beside a writer: %s", waited).isEqualTo(ExitCodes.NOT_ACQUIRED);
            assertThat(waited.stderr()).contains("a read lock of 'pool' was not acquired within 300ms");
            writing.close();
        }
        List<String> tokens = new ArrayList<>();
        assertThat(mostInside(3, tokens, "--shared")).as("--shared runs inside at once").isBetween(2, 3);
        assertThat(new HashSet<>(tokens)).as("a token per --shared run").hasSize(3);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void badCombinationsAndPermitCountsExit64SayingWhatIsAllowed() throws Exception {
        CliProcesses.Running both = cli.run("run", "--uri", uri, "--shared", "--permits", "2", "pool", "--", "true");
        assertThat(both.exitCode()).as("%s", both).isEqualTo(ExitCodes.USAGE);
        assertThat(both.stderr()).contains("--shared, --exclusive and --permits").contains("one at most");
        CliProcesses.Running zero = cli.run("run", "--uri", uri, "--permits", "0", "pool", "--", "true");
        assertThat(zero.exitCode()).as("%s", zero).isEqualTo(ExitCodes.USAGE);
        assertThat(zero.stderr()).contains("allowed: 1 to 64");
        CliProcesses.Running tooLong = cli.run("run", "--uri", uri, "--shared", "n".repeat(195), "--", "true");
        assertThat(tooLong.exitCode()).as("%s", tooLong).isEqualTo(ExitCodes.USAGE);
        assertThat(tooLong.stderr()).contains("allowed: a lock name of 1 to 190 characters");
    }
}
