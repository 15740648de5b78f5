package io.holdfast.cli;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Trial B2 to B9, in process: each kind of bad input or failing store gets its own exit status and a message
 * that says what is allowed, and read-only commands create nothing.
 */
@Timeout(60)
class ErrorExitCodesTest {
    private static final String UNREACHABLE = "jdbc:postgresql://127.0.0.1:1/nowhere";

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
    void aMissingDatabaseOrRoleExits78() {
        assertThat(run("status", "--uri", "jdbc:postgresql://127.0.0.1:5432/hf_nosuchdb?user=postgres", "x")).isEqualTo(ExitCodes.CONFIG);
        assertThat(err.toString()).contains("postgresql store at 127.0.0.1:5432/hf_nosuchdb refused the configuration");
        assertThat(run("status", "--uri", "jdbc:mariadb://127.0.0.1:3306/test?user=hf_nosuchuser", "x")).isEqualTo(ExitCodes.CONFIG);
    }

    @Test
    void badHostsPortsAndParametersExit64() {
        assertThat(run("status", "--uri", "jdbc:postgresql://127.0.0.1:99999/test?user=postgres", "x")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("port in '127.0.0.1:99999' is not a number from 1 to 65535").doesNotContain("No suitable driver");
        assertThat(run("status", "--uri", "redis://:6379", "x")).isEqualTo(ExitCodes.USAGE);
        assertThat(run("status", "--uri", "redis://127.0.0.1:abc", "x")).isEqualTo(ExitCodes.USAGE);
        assertThat(run("status", "--uri", "redis://127.0.0.1:6379?prefx=svc:", "x")).isEqualTo(ExitCodes.USAGE);
        assertThat(run("status", "--uri", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&tabel=t", "x")).isEqualTo(ExitCodes.USAGE);
        assertThat(run("status", "--uri", "sqlite:" + dir.resolve("x.db") + "?busyTimout=1s", "x")).isEqualTo(ExitCodes.USAGE);
        assertThat(dir.toFile().list()).isEmpty();
    }

    @Test
    void aSqliteFileThatCannotBeOpenedExits69() {
        assertThat(run("run", "--uri", "sqlite:/proc/hf-locks.db", "x", "--", "true")).isEqualTo(ExitCodes.STORE_UNAVAILABLE);
        assertThat(err.toString()).contains("sqlite store at /proc/hf-locks.db is unavailable: cannot open");
    }

    @Test
    void statusAndListOfAMissingSqliteFileCreateNothing() {
        Path file = dir.resolve("nonexistent-dir/sub/locks.db");
        assertThat(run("status", "--uri", "sqlite:" + file, "x")).isZero();
        assertThat(out.toString()).contains("lock 'x' is not known to the store (no database file at " + file + ")");
        assertThat(run("status", "--json", "--uri", "sqlite:" + file, "x")).isZero();
        assertThat(out.toString()).contains("\"known\":false");
        assertThat(run("list", "--uri", "sqlite:" + file)).isZero();
        assertThat(out.toString()).contains("no held locks (no database file at " + file + ")");
        assertThat(dir.resolve("nonexistent-dir")).doesNotExist();
    }

    @Test
    void zeroAndHugeDurationsSayWhatIsAllowed() {
        assertThat(run("run", "--uri", UNREACHABLE, "--lease", "0", "x", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("lease 0ms is too short; it must be at least 100ms").doesNotContain("not understood");
        assertThat(run("run", "--uri", UNREACHABLE, "--lease", "999999999999d", "x", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("must be at most 7d");
        assertThat(run("run", "--uri", UNREACHABLE, "--grace", "999999999999d", "x", "--", "true")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("--grace 999999999999d is too long; allowed: 0 to 1d");
        err.getBuffer().setLength(0);
        assertThat(run("run", "--uri", UNREACHABLE, "--grace", "0", "x", "--", "true")).isEqualTo(ExitCodes.STORE_UNAVAILABLE);
        assertThat(err.toString()).doesNotContain("not understood");
    }

    /** Trial B8, ZooKeeper half: the refusal names this ensemble's range (its maxSessionTimeout), and exits 64. */
    @Test
    void aLeaseTheZooKeeperEnsembleCannotKeepExits64NamingItsRange() throws Exception {
        try (TestingServer zk = zooKeeper(2_000)) { // ZooKeeper's defaults: sessions of 4s to 40s
            String uri = "zookeeper://127.0.0.1:" + zk.getPort() + "/cli";
            assertThat(run("run", "--uri", uri, "--lease", "60s", "x", "--", "true")).isEqualTo(ExitCodes.USAGE);
            assertThat(err.toString()).contains("holdfast: lease 1m is longer than the zookeeper store at 127.0.0.1:" + zk.getPort()
                    + "/cli can keep; allowed: 1s to 40s (set by the servers' maxSessionTimeout");
            err.getBuffer().setLength(0);
            assertThat(run("run", "--uri", uri, "--lease", "500ms", "x", "--", "true")).isEqualTo(ExitCodes.USAGE);
            assertThat(err.toString()).contains("holdfast: lease 500ms is shorter than the zookeeper backend can keep; allowed: 1s to 40s");
            err.getBuffer().setLength(0);
            assertThat(run("run", "--uri", uri, "x", "--", "true")).as("the default lease on a default server: " + err).isZero();
        }
    }

    /** A server whose longest session is shorter than the default lease: run without --lease uses that longest session. */
    @Test
    void runWithoutALeaseFitsAZooKeeperServerKeepingLessThan30s() throws Exception {
        try (TestingServer zk = zooKeeper(200)) { // 200 ms ticks, maxSessionTimeout not set: at most 4s
            String uri = "zookeeper://127.0.0.1:" + zk.getPort() + "/cli";
            assertThat(run("run", "--uri", uri, "x", "--", "true")).as(err::toString).isZero();
        }
    }

    private static TestingServer zooKeeper(int tickMs) throws Exception {
        return new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, tickMs, 0, Map.of(), "127.0.0.1"), true);
    }

    @Test
    void helpListsEverySchemeAndNoBackendMessageSuggestsNothingPresent() {
        assertThat(run("status", "--help")).isZero();
        assertThat(out.toString().replaceAll("\\s+", "")).contains("sqlite:").contains("jdbc:postgresql:").contains("redis://")
                .contains("redis-sentinel://").contains("redis-cluster://").contains("redlock://").contains("zookeeper://")
                .contains("etcd://").contains("memcached://");
        assertThat(run("status", "--uri", "gopher://127.0.0.1/x", "x")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString()).contains("memcached://").doesNotContain("add holdfast-");
    }
}
