package io.holdfast.cli;

import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.StoreControl;
import io.holdfast.testkit.torture.Topology;
import io.holdfast.testkit.torture.TortureResult;
import io.holdfast.testkit.torture.TortureRunner;
import io.holdfast.testkit.torture.TortureSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code holdfast torture}: the fault-injection torture harness of {@code holdfast-testkit} on the user's
 * own store. Prints the text report; exits 0 if the fencing guard lost nothing and the lock kept mutual
 * exclusion, reported every lost hold and kept token order, 1 if the run saw a violation of any of these.
 */
@Command(name = "torture", sortOptions = false,
        description = {"Tortures a lock store the way Jepsen would: N client processes loop acquire - read a shared counter - "
                + "pause - write counter+1 - release, while faults are injected on a schedule; then every operation's history "
                + "is checked for overlapping holds, lost updates (with the fencing guard and without it) and token order, and "
                + "a text report (stdout) and an HTML timeline (--report DIR/report.html) are written.",
                "Faults: kill (SIGKILL the lock holder, start a new client), pause (SIGSTOP the holder past its lease, then "
                        + "SIGCONT), partition (cut the holder off the store through a loopback proxy: delay, drop or reset), "
                        + "restart (only with --store-stop and --store-start).",
                "Exit status: 0 if the fenced counter lost no update and no mutual-exclusion, lost-hold-reporting or token "
                        + "violation was seen; 1 if one was (the report says which, when and by whom)."})
final class TortureCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Option(names = "--uri", paramLabel = "URI",
            description = "Lock store (any Holdfast URI this holdfast can load). Default: a SQLite file in the report directory.")
    String uri;
    @Option(names = "--clients", paramLabel = "N", defaultValue = "4", description = "Client processes (1 to 32; default: ${DEFAULT-VALUE}).")
    int clients;
    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "60s", converter = DurationConverter.class,
            description = "How long the clients run (default: ${DEFAULT-VALUE}).")
    Duration duration;
    @Option(names = "--faults", paramLabel = "LIST",
            description = "Faults to inject in turn: kill, pause, restart, partition; with --topology also leader-partition, "
                    + "follower-partition, minority-partition, one-way-partition, leader-kill, leader-pause, slow-link, leader-clock-step (Redis topologies) (comma-separated), all or none (default: kill,pause,restart,partition; "
                    + "with --topology the topology's own set, see the testkit README; a fault that cannot be injected here is skipped and the report says why).")
    String faults;
    @Option(names = "--topology", paramLabel = "NAME",
            description = "Build the store here and torture it: etcd3 (three etcd members), zk3 (a ZooKeeper ensemble of three), "
                    + "sentinel (a Redis master, a replica and three Sentinels), redlock5 (five Redis masters) "
                    + "rediscluster (a Redis Cluster of three masters and three replicas), pg2 (a PostgreSQL primary and an asynchronous "
                    + "streaming replica, promoted when the primary is killed) or pg2sync (the same, replication synchronous), "
                    + "every server and client process in its own network namespace, so partitions can cut any group off "
                    + "(needs root, iproute2, nftables; etcd3 also /usr/bin/etcd, the Redis ones /usr/bin/redis-server, pg2 PostgreSQL 15). Replaces --uri.")
    String topology;
    @Option(names = "--threads", paramLabel = "N", defaultValue = "1",
            description = "Threads sharing one client in every other client process (clients 1, 3, ...; the others run one) (1 to 16; default: ${DEFAULT-VALUE}).")
    int threads;
    @Option(names = "--permits", paramLabel = "N", defaultValue = "1",
            description = "Each round takes one of N permits of a semaphore instead of the lock, and the check allows N holds "
                    + "at once, not more (1 to 64; default: ${DEFAULT-VALUE}, the lock). The write-fenced and unguarded counters "
                    + "then lose updates by design.")
    int permits;
    @Option(names = "--rw", description = "Each round takes a read of a read-write lock (one round in three its write) instead of "
            + "the lock; the check: never a writer with anyone. Not with --permits or --leader.")
    boolean readWrite;
    @Option(names = "--leader", description = "Each round campaigns for leader of an election (holdfast.leader) and resigns at "
            + "its end; the check: one leader at a time, never two in one term. Not with --permits or --rw.")
    boolean leader;

    @Option(names = "--clock-skew", paramLabel = "LIST",
            description = "Clients whose wall clock is off, as CLIENT:OFFSET, comma-separated (for example 2:+30s,3:-30s; whole seconds, "
                    + "at most a day): they run under libfaketime (the faketime package), their monotonic clock honest. "
                    + "On a topology expiry is the servers' business, so this must change nothing. On SQLite the database runs inside "
                    + "each client, so its clock is the client's own.")
    String clockSkew;
    @Option(names = "--report", paramLabel = "DIR", defaultValue = "holdfast-torture",
            description = "Directory for report.txt, report.html, history.tsv and the client logs (default: ${DEFAULT-VALUE}).")
    Path report;
    @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "2s", converter = DurationConverter.class,
            description = "Lease of every hold (renewed); pauses and partitions last 1.5 leases plus 0.5s (default: ${DEFAULT-VALUE}).")
    Duration lease;
    @Option(names = "--think", paramLabel = "DURATION", defaultValue = "60ms", converter = DurationConverter.class,
            description = "Longest random pause between reading the counter and writing it (default: ${DEFAULT-VALUE}).")
    Duration think;
    @Option(names = "--register", paramLabel = "JDBC_URL",
            description = "Database of the shared counters (a JDBC URL). Default: a SQLite file in the report directory.")
    String register;
    @Option(names = "--store-stop", paramLabel = "COMMAND",
            description = "Shell command that kills the store, for the restart fault (with --store-start).")
    String storeStop;
    @Option(names = "--store-start", paramLabel = "COMMAND",
            description = "Shell command that starts the store again and returns once it answers, for the restart fault.")
    String storeStart;
    @Option(names = "--seed", paramLabel = "N", description = "Seed of the random choices (default: from the clock).")
    Long seed;

    @Override
    public Integer call() throws Exception {
        TortureSettings settings = settings();
        PrintWriter err = spec.commandLine().getErr();
        TortureRunner runner = new TortureRunner(settings).progress(line -> {
            err.println(line);
            err.flush();
        });
        if (storeStop != null && storeStart != null) {
            runner.storeControl(new ShellStoreControl(storeStop, storeStart));
        }
        TortureResult result = runner.run();
        PrintWriter out = spec.commandLine().getOut();
        out.print(Files.readString(result.textReport(), StandardCharsets.UTF_8));
        out.flush();
        TortureResult.RegisterOutcome fenced = result.register("fenced");
        boolean ok = fenced.lostUpdates() == 0 && fenced.staleWrites().isEmpty() && fenced.unexplained() == 0
                && result.violations().isEmpty() && result.unreportedLosses().isEmpty() && result.tokenViolations().isEmpty();
        return ok ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private TortureSettings settings() throws java.io.IOException {
        if ((storeStop == null) != (storeStart == null)) {
            throw new ParameterException(spec.commandLine(), "--store-stop and --store-start go together: the restart fault needs both");
        }
        Topology cluster = null;
        if (topology != null) {
            if (uri != null) {
                throw new ParameterException(spec.commandLine(), "--topology and --uri do not go together: the topology builds its own store");
            }
            try {
                cluster = Topology.parse(topology);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--topology: " + e.getMessage());
            }
        }
        Set<Fault> faultSet;
        try {
            faultSet = faults != null ? Fault.parseList(faults) : cluster != null ? cluster.defaultFaults() : Fault.SINGLE_SERVER;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--faults: " + e.getMessage());
        }
        if (readWrite && leader) {
            throw new ParameterException(spec.commandLine(), "--rw and --leader are not allowed together; allowed: one of them, or neither");
        }
        Path dir = report.toAbsolutePath();
        TortureSettings.Builder b = (cluster != null ? TortureSettings.builder(cluster)
                : TortureSettings.builder(uri != null ? uri : "sqlite:" + dir.resolve("locks.db")))
                .clients(clients).duration(duration).faults(faultSet).reportDir(dir).lease(lease).think(think).registerUrl(register)
                .threads(threads).permits(permits).recipe(recipe());
        if (seed != null) {
            b.seed(seed);
        }
        if (clockSkew != null) {
            for (String item : clockSkew.split(",")) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\s*(\\d+):([-+])(\\d+)s\\s*").matcher(item);
                if (!m.matches()) {
                    throw new ParameterException(spec.commandLine(), "--clock-skew: '" + item.trim() + "' is not allowed; allowed: CLIENT:+SECONDSs or "
                            + "CLIENT:-SECONDSs, comma-separated (for example 2:+30s,3:-30s)");
                }
                long seconds = Long.parseLong(m.group(3));
                b.clockSkew(Integer.parseInt(m.group(1)), Duration.ofSeconds(m.group(2).equals("-") ? -seconds : seconds));
            }
        }
        try {
            TortureSettings settings = b.build();
            Files.createDirectories(dir);
            return settings;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The restart fault through the user's own shell commands. */
    private record ShellStoreControl(String stopCommand, String startCommand) implements StoreControl {
        @Override
        public String describe() {
            return "the store (stopped with '" + stopCommand + "', started with '" + startCommand + "')";
        }

        @Override
        public void kill() throws Exception {
            run(stopCommand);
        }

        @Override
        public void start() throws Exception {
            run(startCommand);
        }

        private static void run(String command) throws Exception {
            Process p = new ProcessBuilder(List.of("sh", "-c", command)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(2, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("'" + command + "' did not finish within 2 minutes");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("'" + command + "' exited with status " + p.exitValue());
            }
        }
    }

    private TortureSettings.Recipe recipe() {
        return readWrite ? TortureSettings.Recipe.READ_WRITE : leader ? TortureSettings.Recipe.LEADER : TortureSettings.Recipe.LOCK;
    }
}
