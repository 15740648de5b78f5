package io.holdfast.testkit.torture.net;

import io.holdfast.Durations;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL primary ({@code s1}) and one streaming replica ({@code s2}), Debian's PostgreSQL 15 binaries run
 * as user {@code postgres}, each in its own namespace. Replication is asynchronous, or synchronous
 * ({@code synchronous_standby_names = '*'}, {@code synchronous_commit = on}: a commit is acknowledged once the
 * standby has flushed it). Nothing promotes a standby by itself: the primary is killed after its standby was cut
 * off from it for a lease ({@link #beforeLeaderKill}: replication falls behind), then {@link #failOver} promotes the
 * standby ({@code pg_ctl promote}), and the killed server is started again as a standby of the new primary, its
 * data directory copied anew ({@code pg_basebackup}). Data directories live in a temporary directory owned by
 * {@code postgres} (deleted by {@link #close}); logs under the run's directory. {@code fsync} is off: a killed
 * process loses nothing the kernel has.
 */
public final class PostgresReplicas extends Cluster {
    /** Where Debian installs PostgreSQL 15's programs. */
    public static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");
    private static final int PORT = 5432;
    private final boolean synchronous;
    private final Path data;
    private Network.Member primary;
    private final List<Network.Member> stale = new ArrayList<>();

    /** Two servers in {@code network}; logs under {@code dir}. Nothing runs before {@link #start()}. */
    public PostgresReplicas(Network network, Path dir, boolean synchronous) {
        super(network, dir);
        this.synchronous = synchronous;
        try {
            this.data = Files.createTempDirectory("holdfast-pg2-");
            Commands.check("chown", "postgres:postgres", data.toString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot make the data directories' parent", e);
        }
    }

    /** Why it cannot run here, or null. */
    public static String whyUnavailable() {
        for (String tool : List.of("postgres", "initdb", "pg_ctl", "pg_basebackup")) {
            if (!Files.isExecutable(BIN.resolve(tool))) {
                return BIN.resolve(tool) + " is missing: install postgresql-15 (scripts/services does)";
            }
        }
        try {
            return Commands.run(List.of("id", "postgres"), null).ok() ? null : "no user postgres: install postgresql-15 (scripts/services does)";
        } catch (IOException e) {
            return "cannot look up user postgres: " + e.getMessage();
        }
    }

    @Override
    protected List<String> serverNames() {
        return List.of("s1", "s2");
    }

    @Override
    public int clientPort() {
        return PORT;
    }

    @Override
    public String leaderRole() {
        return "primary";
    }

    @Override
    public String restartedAs() {
        return "as a standby of the new primary (data directory copied anew with pg_basebackup)";
    }

    /** Both servers; the driver connects to whichever says it is the primary. */
    @Override
    public String uri() {
        return "jdbc:postgresql://" + String.join(",", servers().stream().map(s -> s.address() + ":" + PORT).toList())
                + "/postgres?user=postgres&targetServerType=primary&hostRecheckSeconds=1&socketTimeout=5&connectTimeout=2s";
    }

    @Override
    public String describe() {
        return "PostgreSQL 15 primary + streaming replica, " + (synchronous ? "synchronous (synchronous_standby_names '*', synchronous_commit on)"
                : "asynchronous") + ", promoted by the harness after the primary is killed (" + String.join(", ", servers().stream().map(Network.Member::toString).toList())
                + "), each in its own network namespace";
    }

    @Override
    protected synchronized List<String> command(Network.Member s) throws IOException {
        Path pgdata = data.resolve(s.name());
        if (primary == null) {
            primary = s;
            initPrimary(pgdata);
        } else if (!s.equals(primary) && (!Files.exists(pgdata) || stale.remove(s))) {
            copyFromPrimary(s, pgdata);
        }
        return List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", BIN.resolve("postgres").toString(), "-D", pgdata.toString(),
                "-c", "listen_addresses=*", "-c", "port=" + PORT, "-c", "unix_socket_directories=", "-c", "fsync=off",
                "-c", "synchronous_standby_names=" + (synchronous ? "*" : ""), "-c", "synchronous_commit=on",
                "-c", "wal_receiver_status_interval=1s", "-c", "log_line_prefix=%m [%p] ");
    }

    private void initPrimary(Path pgdata) throws IOException {
        asPostgres(null, BIN.resolve("initdb").toString(), "-D", pgdata.toString(), "-U", "postgres", "--auth=trust", "--no-sync");
        Files.writeString(pgdata.resolve("pg_hba.conf"), "host all all 127.0.0.1/32 trust\nhost all all 10.77.0.0/24 trust\n"
                + "host replication all 127.0.0.1/32 trust\nhost replication all 10.77.0.0/24 trust\n", StandardCharsets.UTF_8);
    }

    /** Copies the primary's data directory to {@code s} as a standby of it ({@code standby.signal}, {@code primary_conninfo}). */
    private void copyFromPrimary(Network.Member s, Path pgdata) throws IOException {
        awaitAnsweringPrimary();
        deleteTree(pgdata);
        asPostgres(s, BIN.resolve("pg_basebackup").toString(), "-h", primary.address(), "-p", Integer.toString(PORT), "-U", "postgres",
                "-D", pgdata.toString(), "-R", "-X", "stream", "-c", "fast", "--no-sync");
    }

    private void awaitAnsweringPrimary() throws IOException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!"f".equals(inRecovery(primary))) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("the primary " + primary + " did not answer within 60 s; its log:\n" + tail(primary));
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the primary", e);
            }
        }
    }

    /**
     * Cuts the standby off from the primary for {@code lag} and leaves it cut off: the primary, which the clients
     * still reach, commits what the standby will never see (asynchronous replication) or waits for it
     * (synchronous), and is then killed.
     */
    @Override
    public String beforeLeaderKill(Network.Member leader, Duration lag) throws Exception {
        Network.Member standby = other(leader);
        network.partition(List.of(leader), List.of(standby));
        Thread.sleep(lag.toMillis());
        return "its standby " + standby.name() + " cut off from it for " + Durations.format(lag) + " (replication falls behind; the clients still reach it)";
    }

    private Network.Member other(Network.Member server) {
        return servers().stream().filter(s -> !s.equals(server)).findFirst().orElseThrow();
    }

    /** Promotes the standby ({@code pg_ctl promote}, waiting until it accepts writes); the killed server will be copied anew. */
    @Override
    public synchronized String failOver(Network.Member killedLeader) throws Exception {
        Network.Member standby = other(killedLeader);
        asPostgres(null, BIN.resolve("pg_ctl").toString(), "promote", "-w", "-t", "25", "-D", data.resolve(standby.name()).toString());
        primary = standby;
        stale.add(killedLeader);
        return "standby " + standby.name() + " promoted (pg_ctl promote)";
    }

    @Override
    protected boolean answers(Network.Member s) {
        String r = inRecovery(s);
        return r.equals("t") || r.equals("f");
    }

    @Override
    protected boolean leads(Network.Member s) {
        return "f".equals(inRecovery(s));
    }

    /** {@code pg_is_in_recovery()} as the server answers it ({@code t}: a standby, {@code f}: a primary), or "" if it does not. */
    private String inRecovery(Network.Member s) {
        try {
            return Commands.run(List.of("nsenter", "--net=/run/netns/" + s.namespace(), "timeout", "3", BIN.resolve("psql").toString(),
                    "-h", "127.0.0.1", "-p", Integer.toString(PORT), "-U", "postgres", "-d", "postgres", "-Atc", "select pg_is_in_recovery()"), null).output();
        } catch (IOException e) {
            return "";
        }
    }

    /** Runs a PostgreSQL program as user postgres, inside {@code s}'s namespace if it is not null. */
    private static void asPostgres(Network.Member s, String... command) throws IOException {
        List<String> all = new ArrayList<>();
        if (s != null) {
            all.addAll(List.of("nsenter", "--net=/run/netns/" + s.namespace()));
        }
        all.addAll(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"));
        all.addAll(List.of(command));
        Commands.check(all.toArray(String[]::new));
    }

    /** Kills both servers and deletes their data directories. */
    @Override
    public void close() {
        super.close();
        try {
            deleteTree(data);
        } catch (IOException e) {
            System.err.println("cluster: cannot delete " + data + ": " + e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
