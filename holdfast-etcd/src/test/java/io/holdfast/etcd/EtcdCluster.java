package io.holdfast.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.holdfast.testkit.LoopbackPorts;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Real etcd processes ({@code /usr/bin/etcd}, Debian's etcd-server) on free loopback ports, with their data
 * directories in a temporary directory. Each member runs under a small shell that kills it when this JVM's
 * end of its standard input closes, so no member outlives the test JVM even if the JVM is killed; a shutdown
 * hook and {@link #close()} stop them in the ordinary case.
 *
 * <p>Timing: 100 ms heartbeats and a 600 ms election timeout (with pre-vote), so that etcd's minimum lease
 * TTL (1.5 election timeouts) is under a second and the conformance suite's 1 s leases can be kept.
 */
final class EtcdCluster implements AutoCloseable {
    static final Path ETCD = Path.of("/usr/bin/etcd");
    private static final Duration READY_WAIT = Duration.ofSeconds(60);
    private static final Set<EtcdCluster> RUNNING = ConcurrentHashMap.newKeySet();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(EtcdCluster::close), "etcd-cluster-cleanup"));
    }

    private final Path dir;
    private final Options options;
    private final List<Member> members = new ArrayList<>();

    /**
     * How members run.
     *
     * @param electionMillis the election timeout (heartbeats every sixth of it); etcd's minimum lease TTL is
     *        1.5 election timeouts, rounded up to a second
     * @param certFile PEM certificate to serve clients over TLS with, or null for plain HTTP
     * @param keyFile its PEM private key, or null
     */
    record Options(int electionMillis, Path certFile, Path keyFile) {
        /** Plain HTTP, 600 ms elections (heartbeats every 100 ms): leases down to 1 s. */
        static final Options FAST = new Options(600, null, null);

        boolean tls() {
            return certFile != null;
        }
    }

    /** One etcd process. */
    final class Member {
        final String name;
        final int clientPort;
        final int peerPort;
        final Path dataDir;
        final Path log;
        private Process shell;
        private volatile long pid;

        Member(String name, int clientPort, int peerPort) {
            this.name = name;
            this.clientPort = clientPort;
            this.peerPort = peerPort;
            this.dataDir = dir.resolve(name + ".data");
            this.log = dir.resolve(name + ".log");
        }

        String clientUrl() {
            return (options.tls() ? "https://" : "http://") + "127.0.0.1:" + clientPort;
        }

        String peerUrl() {
            return "http://127.0.0.1:" + peerPort;
        }

        String hostPort() {
            return "127.0.0.1:" + clientPort;
        }

        long pid() {
            return pid;
        }

        boolean isAlive() {
            return pid != 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }

        void start(String initialCluster, String token, boolean fresh) throws IOException {
            List<String> command = new ArrayList<>(List.of("sh", "-c",
                    // Run etcd in the background, print its pid, and kill it once our stdin reaches its end.
                    "\"$0\" \"$@\" >>\"$ETCD_TEST_LOG\" 2>&1 & echo $!; cat >/dev/null; kill -9 $! 2>/dev/null",
                    ETCD.toString(),
                    "--name", name,
                    "--data-dir", dataDir.toString(),
                    "--listen-client-urls", clientUrl(),
                    "--advertise-client-urls", clientUrl(),
                    "--listen-peer-urls", peerUrl(),
                    "--initial-advertise-peer-urls", peerUrl(),
                    "--initial-cluster", initialCluster,
                    "--initial-cluster-token", token,
                    "--initial-cluster-state", fresh ? "new" : "existing",
                    "--heartbeat-interval", Integer.toString(options.electionMillis() / 6),
                    "--election-timeout", Integer.toString(options.electionMillis()),
                    "--pre-vote"));
            if (options.tls()) {
                command.addAll(List.of("--cert-file", options.certFile().toString(), "--key-file", options.keyFile().toString()));
            }
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
            builder.environment().put("ETCD_TEST_LOG", log.toString());
            shell = builder.start();
            BufferedReader out = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            if (line == null) {
                throw new IOException("etcd member " + name + " did not start; log " + log);
            }
            pid = Long.parseLong(line.trim());
        }

        /** SIGKILL, and waits until the process is gone. */
        void kill() {
            ProcessHandle.of(pid).ifPresent(p -> {
                p.destroyForcibly();
                try {
                    p.onExit().get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException("etcd member " + name + " (pid " + pid + ") survived SIGKILL", e);
                }
            });
            closeShell();
        }

        /** SIGTERM, then SIGKILL if it has not exited within 10 seconds. */
        void stop() {
            ProcessHandle.of(pid).ifPresent(p -> {
                p.destroy();
                try {
                    p.onExit().get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    p.destroyForcibly();
                }
            });
            closeShell();
        }

        private void closeShell() {
            if (shell != null) {
                try {
                    shell.getOutputStream().close();
                } catch (IOException e) {
                    // the shell is gone already
                }
                shell.destroy();
            }
        }

        /** Starts a stopped or killed member again, rejoining the cluster with its data directory. */
        void restart() throws Exception {
            start(initialCluster(), "unused-on-restart", false);
            awaitHealthy(this);
        }

        @Override
        public String toString() {
            return "etcd " + name + " (pid " + pid + ", " + hostPort() + ")";
        }
    }

    private EtcdCluster(Path dir, Options options) {
        this.dir = dir;
        this.options = options;
    }

    /**
     * Starts a cluster of {@code size} members and waits until every one answers healthy. A port picked as
     * free can be taken before etcd binds it (the members' own outgoing connections use the same range), so
     * a start that fails on a taken port is tried again with new ports, up to three times.
     */
    static EtcdCluster start(int size) throws Exception {
        return start(size, Options.FAST);
    }

    /** Starts a cluster of {@code size} members run with {@code options}; see {@link #start(int)}. */
    static EtcdCluster start(int size, Options options) throws Exception {
        if (!Files.isExecutable(ETCD)) {
            throw new IllegalStateException(ETCD + " is missing: install Debian's etcd-server (scripts/services does)");
        }
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(size, options);
            } catch (IllegalStateException e) {
                if (attempt == 3 || e.getMessage() == null || !e.getMessage().contains("address already in use")) {
                    throw e;
                }
            }
        }
    }

    private static EtcdCluster startOnce(int size, Options options) throws Exception {
        EtcdCluster cluster = new EtcdCluster(Files.createTempDirectory("holdfast-etcd-"), options);
        RUNNING.add(cluster);
        try {
            for (int i = 1; i <= size; i++) {
                cluster.members.add(cluster.new Member("m" + i, LoopbackPorts.unusedPort(), LoopbackPorts.unusedPort()));
            }
            String token = "holdfast-test-" + UUID.randomUUID();
            for (Member m : cluster.members) {
                m.start(cluster.initialCluster(), token, true);
            }
            for (Member m : cluster.members) {
                cluster.awaitHealthy(m);
            }
            return cluster;
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
    }

    private String initialCluster() {
        return members.stream().map(m -> m.name + "=" + m.peerUrl()).collect(Collectors.joining(","));
    }

    List<Member> members() {
        return List.copyOf(members);
    }

    /** {@code etcd://} with every member, then {@code /prefix} and {@code ?query} if given. */
    String uri(String prefix, String query) {
        return "etcd://" + members.stream().map(Member::hostPort).collect(Collectors.joining(",")) + "/" + prefix
                + (query == null || query.isEmpty() ? "" : "?" + query);
    }

    /** {@code etcd://} with one member only. */
    static String uri(Member member, String prefix, String query) {
        return "etcd://" + member.hostPort() + "/" + prefix + (query == null || query.isEmpty() ? "" : "?" + query);
    }

    /** The member that is the Raft leader now, as the live members see it (bounded wait while one is elected). */
    Member leader() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            for (Member m : members) {
                if (!m.isAlive()) {
                    continue;
                }
                try (Client c = Client.builder().endpoints(m.clientUrl()).build()) {
                    StatusResponse s = c.getMaintenanceClient().statusMember(m.clientUrl()).get(3, TimeUnit.SECONDS);
                    long leaderId = s.getLeader();
                    if (leaderId != 0 && leaderId == s.getHeader().getMemberId()) {
                        return m;
                    }
                } catch (Exception e) {
                    // not answering yet; ask the next one
                }
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("no etcd member reports itself leader within 30s");
    }

    /** Waits until {@code m} answers {@code /health} with true. */
    void awaitHealthy(Member m) throws Exception {
        long deadline = System.nanoTime() + READY_WAIT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!m.isAlive()) {
                throw new IllegalStateException(m + " exited; log:\n" + tail(m.log));
            }
            if (options.tls()) {
                if (tlsHealthy(m)) {
                    return;
                }
                Thread.sleep(100);
                continue;
            }
            try {
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(m.clientUrl() + "/health"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                last = r.body();
                if (r.statusCode() == 200 && r.body().contains("\"true\"")) {
                    return;
                }
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(m + " not healthy within " + READY_WAIT + " (" + last + "); log:\n" + tail(m.log));
    }

    /** Whether a TLS member accepts connections (its health endpoint needs the test CA, which the HTTP client lacks). */
    private static boolean tlsHealthy(Member m) {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", m.clientPort), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The sum of a Prometheus counter on {@code m} over the series whose label text contains every one of
     * {@code labels} (for example {@code grpc_method="Txn"}).
     */
    static double metric(Member m, String name, String... labels) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(m.clientUrl() + "/metrics"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        double sum = 0;
        for (String line : r.body().split("\n")) {
            if (!(line.startsWith(name + " ") || line.startsWith(name + "{"))) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= line.contains(label);
            }
            if (all) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Stops every member and deletes the data directories. */
    @Override
    public void close() {
        RUNNING.remove(this);
        for (Member m : members) {
            try {
                m.stop();
            } catch (RuntimeException e) {
                // keep stopping the others
            }
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // a temp directory left behind is harmless
        }
    }

    Optional<Member> member(String name) {
        return members.stream().filter(m -> m.name.equals(name)).findFirst();
    }
}
