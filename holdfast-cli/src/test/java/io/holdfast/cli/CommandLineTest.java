package io.holdfast.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Argument handling, in process. Every case uses a store URI that cannot be reached, so an exit status
 * other than 69 also proves the command stopped before connecting.
 */
class CommandLineTest {
    private static final String UNREACHABLE = "jdbc:postgresql://127.0.0.1:1/nowhere";

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = HoldfastCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void badDurationIsAUsageErrorThatListsTheAcceptedForms() {
        assertThat(run("run", "--uri", UNREACHABLE, "--wait", "10parsecs", "job", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("--wait").contains("10parsecs").contains("500ms").contains("PT10S");
    }

    @Test
    void leaseOutOfRangeIsAUsageErrorThatSaysTheRange() {
        assertThat(run("run", "--uri", UNREACHABLE, "--lease", "10ms", "job", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("allowed: 100ms to 7d");
    }

    @Test
    void missingCommandIsAUsageError() {
        assertThat(run("run", "--uri", UNREACHABLE, "job")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("COMMAND").contains("holdfast run --help");
    }

    @Test
    void leadRefusesBadArgumentsBeforeConnecting() {
        assertThat(run("lead", "--uri", UNREACHABLE, "job")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("COMMAND").contains("holdfast lead --help");
        err.getBuffer().setLength(0);
        assertThat(run("lead", "--uri", UNREACHABLE, "no spaces", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("'no spaces'").contains("allowed:");
        err.getBuffer().setLength(0);
        assertThat(run("lead", "--uri", UNREACHABLE, "--lease", "10ms", "job", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("allowed: 100ms to 7d");
        err.getBuffer().setLength(0);
        assertThat(run("lead", "--uri", UNREACHABLE, "--grace", "2d", "job", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("--grace 2d is too long; allowed: 0 to 1d");
        err.getBuffer().setLength(0);
        assertThat(run("lead", "--uri", UNREACHABLE, "job", "--", "no-such-command-holdfast-test")).isEqualTo(ExitCodes.CANNOT_START);
        assertThat(err.toString()).contains("not found in PATH");
    }

    @Test
    void badLockNameIsAUsageErrorThatSaysWhatIsAllowed() {
        assertThat(run("run", "--uri", UNREACHABLE, "no spaces", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("'no spaces'").contains("allowed:");
        err.getBuffer().setLength(0);
        assertThat(run("status", "--uri", UNREACHABLE, "/leading")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("allowed:");
    }

    @Test
    void commandThatCannotBeFoundExits127BeforeTakingTheLock() {
        assertThat(run("run", "--uri", UNREACHABLE, "job", "--", "no-such-command-holdfast-test")).isEqualTo(ExitCodes.CANNOT_START);
        assertThat(err.toString()).contains("not found in PATH");
        err.getBuffer().setLength(0);
        assertThat(run("run", "--uri", UNREACHABLE, "job", "--", "/no/such/file")).isEqualTo(ExitCodes.CANNOT_START);
        assertThat(err.toString()).contains("no such executable file");
    }

    @Test
    void permitCountsAndNamesTooLongForTheirSuffixesAreRefusedBeforeConnecting() {
        for (String permits : new String[] {"0", "65", "-1"}) {
            err.getBuffer().setLength(0);
            assertThat(run("run", "--uri", UNREACHABLE, "--permits", permits, "job", "--", "true")).as("--permits %s", permits)
                    .isEqualTo(ExitCodes.USAGE);
            assertThat(err.toString()).contains("semaphore 'job' cannot have " + permits + " permits; allowed: 1 to 64");
        }
        String name = "n".repeat(195); // a valid lock name, too long for a semaphore's or read-write lock's suffixes
        for (String how : new String[] {"--shared", "--exclusive", "--permits=2"}) {
            err.getBuffer().setLength(0);
            assertThat(run("run", "--uri", UNREACHABLE, how, name, "--", "true")).as("%s with a 195-character name", how)
                    .isEqualTo(ExitCodes.USAGE);
            assertThat(err.toString()).contains("195 characters long").contains("allowed: a lock name of 1 to 190 characters");
        }
        // The same name is fine for a plain run: it gets as far as the store, which cannot be reached.
        assertThat(run("run", "--uri", UNREACHABLE, name, "--", "true")).isEqualTo(ExitCodes.STORE_UNAVAILABLE);
    }

    @Test
    void conflictExitCodeMustBeAnExitStatusFrom0To255() {
        assertThat(run("run", "--uri", UNREACHABLE, "-E", "256", "job", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("--conflict-exit-code").contains("256").contains("allowed: an integer from 0 to 255");
        err.getBuffer().setLength(0);
        assertThat(run("run", "--uri", UNREACHABLE, "--conflict-exit-code", "-1", "job", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("-1").contains("allowed: an integer from 0 to 255");
        err.getBuffer().setLength(0);
        assertThat(run("run", "--uri", UNREACHABLE, "-E", "skip", "job", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("'skip' is not an exit status").contains("0 to 255");
        // A valid status is taken: the run gets as far as the store, which cannot be reached.
        assertThat(run("run", "--uri", UNREACHABLE, "-E", "0", "job", "--", "true")).isEqualTo(ExitCodes.STORE_UNAVAILABLE);
        assertThat(run("run", "--uri", UNREACHABLE, "--conflict-exit-code", "255", "job", "--", "true"))
                .isEqualTo(ExitCodes.STORE_UNAVAILABLE);
    }

    @Test
    void aCallBuildsOnlyTheSubcommandItNamesWhileHelpAndUnknownCommandsSeeThemAll() {
        for (String name : HoldfastCli.SUBCOMMANDS.keySet()) {
            if (!name.equals("help")) {
                // picocli registers a command under its @Command name: this also checks the table's names.
                assertThat(HoldfastCli.commandFor(name, "--help").getSubcommands().keySet()).as(name).containsExactly(name);
            }
        }
        assertThat(HoldfastCli.commandFor("--help").getSubcommands().keySet())
                .containsExactlyElementsOf(HoldfastCli.SUBCOMMANDS.keySet());
        assertThat(HoldfastCli.commandFor("help", "run").getSubcommands()).hasSize(HoldfastCli.SUBCOMMANDS.size());
        assertThat(HoldfastCli.commandFor("rnu").getSubcommands()).hasSize(HoldfastCli.SUBCOMMANDS.size());
        assertThat(HoldfastCli.commandFor().getSubcommands()).hasSize(HoldfastCli.SUBCOMMANDS.size());
        assertThat(HoldfastCli.commandFor("--version").getSubcommands()).isEmpty();

        assertThat(HoldfastCli.execute("rnu")).isEqualTo(ExitCodes.USAGE);
        assertThat(run("help", "status")).isZero();
        assertThat(out.toString()).contains("holdfast status");
    }

    @Test
    void releaseWithoutForceIsRefusedAndSaysWhy() {
        assertThat(run("release", "--uri", UNREACHABLE, "job")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("without --force").contains("lease");
    }

    @Test
    void unknownCommandsAndOptionsAreUsageErrors() {
        assertThat(run("frobnicate")).isEqualTo(ExitCodes.USAGE);
        assertThat(run()).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("missing command");
        assertThat(run("status", "--bogus", "job")).isEqualTo(ExitCodes.USAGE);
        assertThat(run("list", "--uri", UNREACHABLE, "--limit", "0")).isEqualTo(ExitCodes.USAGE);
        assertThat(run("demo", "--workers", "1")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("allowed: 2 to 32");
    }

    @Test
    void statusPermitsOutsideWhatASemaphoreHasIsAUsageError() {
        assertThat(run("status", "--uri", UNREACHABLE, "--permits", "65", "pool")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("--permits 65 is not allowed; allowed: 1 to 64");
    }

    @Test
    void unreachableStoreExits69NamingTheAddress() {
        assertThat(run("status", "--uri", UNREACHABLE, "job")).isEqualTo(ExitCodes.STORE_UNAVAILABLE);
        assertThat(err.toString()).contains("postgresql").contains("127.0.0.1:1");
    }

    @Test
    void uriThatNoBackendAcceptsIsAUsageError() {
        assertThat(run("status", "--uri", "gopher://127.0.0.1/x", "job")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("sqlite:");
    }

    @Test
    void helpAndVersionExitZero() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("Exit status:").contains("75");
        assertThat(run("run", "--help")).isZero();
        assertThat(out.toString()).contains("NAME -- COMMAND");
        assertThat(run("--version")).isZero();
        assertThat(out.toString()).contains("holdfast");
    }

    @Test
    void leaseLeftIsShortAndReadable() {
        assertThat(LockViews.leaseLeft(null)).isEqualTo("-");
        assertThat(LockViews.leaseLeft(Duration.ofMillis(850))).isEqualTo("850ms");
        assertThat(LockViews.leaseLeft(Duration.ofMillis(27_349))).isEqualTo("27.3s");
        assertThat(LockViews.leaseLeft(Duration.ofSeconds(245))).isEqualTo("4m05s");
        assertThat(LockViews.leaseLeft(Duration.ofMinutes(130))).isEqualTo("2h10m");
        assertThat(LockViews.leaseLeft(Duration.ofMillis(-5))).isEqualTo("0ms");
    }

    @Test
    void demoStripsHoldfastParametersFromJdbcUrlsAndKeepsTheDriverOnes() {
        assertThat(DemoShop.jdbcUrlOf("sqlite:/tmp/x.db")).isNull();
        assertThat(DemoShop.jdbcUrlOf("jdbc:postgresql://127.0.0.1:5432/test?user=postgres&table=t&poolSize=2"))
                .isEqualTo("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        assertThat(DemoShop.jdbcUrlOf("jdbc:sqlite:/tmp/x.db?busyTimeout=5s")).isEqualTo("jdbc:sqlite:/tmp/x.db");
        assertThat(DemoShop.jdbcUrlOf("jdbc:mariadb://127.0.0.1/test?connectTimeout=2s&user=root&createTable=false"))
                .isEqualTo("jdbc:mariadb://127.0.0.1/test?user=root");
    }

    @Test
    void findsExecutablesLikeAShell() {
        assertThat(Processes.findExecutable("sh")).isPresent();
        assertThat(Processes.findExecutable("/bin/sh")).isPresent();
        assertThat(Processes.findExecutable("/etc/passwd")).isEmpty(); // exists, not executable
        assertThat(Processes.findExecutable("")).isEmpty();
    }
}
