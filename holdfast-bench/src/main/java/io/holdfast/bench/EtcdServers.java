package io.holdfast.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A throwaway etcd cluster for the benchmark: {@code /usr/bin/etcd} members on free loopback ports, data in a
 * temporary directory, etcd's default timing (100 ms heartbeats, 1 s elections). Each member runs under a
 * shell that kills it when this JVM goes away.
 */
final class EtcdServers implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Path dir;
    private final List<Integer> clientPorts = new ArrayList<>();
    private final List<Process> shells = new ArrayList<>();
    private final List<Long> pids = new ArrayList<>();

    private EtcdServers(Path dir) {
        this.dir = dir;
    }

    /** Starts {@code size} members and waits until each answers healthy. */
    static EtcdServers start(int size) throws Exception {
        for (int attempt = 1; ; attempt++) {
            EtcdServers s = new EtcdServers(Files.createTempDirectory("holdfast-bench-etcd-"));
            try {
                s.startMembers(size);
                return s;
            } catch (IllegalStateException e) {
                s.close();
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private void startMembers(int size) throws Exception {
        List<Integer> peerPorts = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            clientPorts.add(freePort());
            peerPorts.add(freePort());
        }
        List<String> initial = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            initial.add("m" + (i + 1) + "=http://127.0.0.1:" + peerPorts.get(i));
        }
        String token = "holdfast-bench-" + UUID.randomUUID();
        for (int i = 0; i < size; i++) {
            String name = "m" + (i + 1);
            ProcessBuilder pb = new ProcessBuilder("sh", "-c",
                    "\"$0\" \"$@\" >>\"$ETCD_BENCH_LOG\" 2>&1 & echo $!; cat >/dev/null; kill -9 $! 2>/dev/null",
                    "/usr/bin/etcd", "--name", name, "--data-dir", dir.resolve(name).toString(),
                    "--listen-client-urls", "http://127.0.0.1:" + clientPorts.get(i),
                    "--advertise-client-urls", "http://127.0.0.1:" + clientPorts.get(i),
                    "--listen-peer-urls", "http://127.0.0.1:" + peerPorts.get(i),
                    "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPorts.get(i),
                    "--initial-cluster", String.join(",", initial), "--initial-cluster-token", token,
                    "--initial-cluster-state", "new").redirectError(ProcessBuilder.Redirect.DISCARD);
            pb.environment().put("ETCD_BENCH_LOG", dir.resolve(name + ".log").toString());
            Process shell = pb.start();
            shells.add(shell);
            String pid = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8)).readLine();
            if (pid == null) {
                throw new IllegalStateException("etcd " + name + " did not start");
            }
            pids.add(Long.parseLong(pid.trim()));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int port : clientPorts) {
            while (!healthy(port)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("etcd on port " + port + " not healthy within 60s; logs in " + dir);
                }
                Thread.sleep(100);
            }
        }
    }

    private static boolean healthy(int port) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().contains("\"true\"");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code host:port} of every member's client URL. */
    List<String> endpoints() {
        return clientPorts.stream().map(p -> "127.0.0.1:" + p).toList();
    }

    /** Process ids of the members (for their CPU time). */
    List<Long> pids() {
        return List.copyOf(pids);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        for (long pid : pids) {
            ProcessHandle.of(pid).ifPresent(p -> {
                p.destroy();
                try {
                    p.onExit().get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    p.destroyForcibly();
                }
            });
        }
        for (Process shell : shells) {
            try {
                shell.getOutputStream().close();
            } catch (IOException e) {
                // gone already
            }
            shell.destroy();
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }

    @Override
    public String toString() {
        return clientPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }
}
