package io.holdfast.spring;

import io.holdfast.testkit.LoopbackPorts;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
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
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} or {@code etcd} process for the starter's tests, on a free loopback port in a temporary
 * directory (the same servers the backend modules' harnesses start). It runs under a small shell that kills it when
 * this JVM's end of its standard input closes, so it never outlives the test JVM; {@link #close()} kills it at once.
 */
final class ServerProcess implements AutoCloseable {
    final int port;
    private final Path dir;
    private final Process shell;
    private final long pid;

    private ServerProcess(int port, Path dir, Process shell, long pid) {
        this.port = port;
        this.dir = dir;
        this.shell = shell;
        this.pid = pid;
    }

    /** A plain redis-server without persistence, answering PING. */
    static ServerProcess redis() throws Exception {
        int port = LoopbackPorts.unusedPort();
        Path dir = Files.createTempDirectory("holdfast-starter-redis-");
        ServerProcess server = start(dir, port, "/usr/bin/redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--dir", dir.toString(), "--save", "", "--appendonly", "no");
        server.await(() -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                s.setSoTimeout(2000);
                s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine().equals("+PONG");
            }
        });
        return server;
    }

    /** A one-member etcd cluster with short elections (leases down to 1 s), healthy. */
    static ServerProcess etcd() throws Exception {
        int port = LoopbackPorts.unusedPort();
        int peer = LoopbackPorts.unusedPort();
        Path dir = Files.createTempDirectory("holdfast-starter-etcd-");
        String client = "http://127.0.0.1:" + port;
        String peers = "http://127.0.0.1:" + peer;
        ServerProcess server = start(dir, port, "/usr/bin/etcd", "--name", "m1", "--data-dir", dir.resolve("data").toString(),
                "--listen-client-urls", client, "--advertise-client-urls", client, "--listen-peer-urls", peers,
                "--initial-advertise-peer-urls", peers, "--initial-cluster", "m1=" + peers, "--initial-cluster-state", "new",
                "--heartbeat-interval", "100", "--election-timeout", "600");
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        server.await(() -> {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(client + "/health")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().contains("\"true\"");
        });
        return server;
    }

    private static ServerProcess start(Path dir, int port, String... command) throws IOException {
        if (!Files.isExecutable(Path.of(command[0]))) {
            throw new IllegalStateException(command[0] + " is missing: run scripts/services (it installs the servers the tests need)");
        }
        List<String> cmd = new ArrayList<>(List.of("sh", "-c",
                "\"$0\" \"$@\" >>\"$SERVER_LOG\" 2>&1 & echo $!; cat >/dev/null; kill -9 $! 2>/dev/null"));
        cmd.addAll(List.of(command));
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("SERVER_LOG", dir.resolve("server.log").toString());
        Process shell = builder.start();
        String line = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.US_ASCII)).readLine();
        if (line == null) {
            throw new IllegalStateException(command[0] + " did not start");
        }
        return new ServerProcess(port, dir, shell, Long.parseLong(line.trim()));
    }

    private interface Probe {
        boolean ready() throws Exception;
    }

    private void await(Probe probe) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (!isAlive()) {
                String log = Files.readString(dir.resolve("server.log"));
                close();
                throw new IllegalStateException("server on port " + port + " exited: " + log);
            }
            try {
                if (probe.ready()) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(50);
        }
        close();
        throw new IllegalStateException("server on port " + port + " not ready within 60s", last);
    }

    boolean isAlive() {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** SIGKILL, waiting until the process is gone. */
    void kill() {
        ProcessHandle.of(pid).ifPresent(p -> {
            p.destroyForcibly();
            p.onExit().orTimeout(30, TimeUnit.SECONDS).join();
        });
        try {
            shell.getOutputStream().close();
        } catch (IOException e) {
            // the shell is gone already
        }
        shell.destroy();
    }

    @Override
    public void close() {
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
