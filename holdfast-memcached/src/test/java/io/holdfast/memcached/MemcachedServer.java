package io.holdfast.memcached;

import io.holdfast.testkit.LoopbackPorts;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A {@code memcached} process (Debian's {@code /usr/bin/memcached}) on a free loopback port. Stopped by
 * {@link #close()}, and by a shutdown hook if a test run ends without it, so no server outlives the tests.
 * {@link #restart()} starts a fresh process on the same port: every key is gone, as after a crash.
 */
final class MemcachedServer implements AutoCloseable {
    static final String MEMCACHED = "/usr/bin/memcached";
    private static final Set<MemcachedServer> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(MemcachedServer::stop), "memcached-reaper"));
    }

    final int port;
    private final List<String> command;
    private final Path log;
    private Process process;

    private MemcachedServer(int port, List<String> command, Path log) {
        this.port = port;
        this.command = command;
        this.log = log;
    }

    /** Starts a server with 64 MB of memory plus {@code extra} options and waits until it answers. */
    static MemcachedServer start(String... extra) {
        if (!Files.isExecutable(Path.of(MEMCACHED))) {
            throw new IllegalStateException(MEMCACHED + " is missing: run scripts/services (it installs the memcached package)");
        }
        int port = LoopbackPorts.unusedPort();
        List<String> cmd = new ArrayList<>(List.of(MEMCACHED, "-l", "127.0.0.1", "-p", Integer.toString(port), "-U", "0",
                "-m", "64", "-c", "1024",
                // memcached refuses to run as root without -u; naming the current user keeps whoever runs the tests
                "-u", System.getProperty("user.name")));
        cmd.addAll(List.of(extra));
        Path log;
        try {
            log = Files.createTempFile("holdfast-memcached-" + port + "-", ".log");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        MemcachedServer server = new MemcachedServer(port, cmd, log);
        server.launch();
        return server;
    }

    private void launch() {
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        RUNNING.add(this);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("memcached on port " + port + " exited: " + log());
            }
            try {
                if (command("version").startsWith("VERSION ")) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            sleep(20);
        }
        stop();
        throw new IllegalStateException("memcached on port " + port + " did not answer within 30s: " + log());
    }

    String uri(String params) {
        return "memcached://127.0.0.1:" + port + (params.isEmpty() ? "" : "?" + params);
    }

    /** Sends one text-protocol command and returns the first line of the reply. */
    String command(String line) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String reply = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            if (reply == null) {
                throw new IOException("memcached closed the connection");
            }
            return reply;
        }
    }

    /** Kills the process (SIGKILL: every key is lost) and starts a new one on the same port. */
    void restart() {
        stop();
        launch();
    }

    /** SIGSTOP: the server stops in its tracks (its data and sockets stay, nothing is read or answered). */
    void pause() {
        io.holdfast.testkit.Pause.freeze(process);
    }

    /** SIGCONT after {@link #pause()}. */
    void resume() {
        io.holdfast.testkit.Pause.thaw(process);
    }

    /** SIGKILL, and waits until the process is gone. */
    void stop() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        RUNNING.remove(this);
    }

    String log() {
        try {
            String text = Files.exists(log) ? Files.readString(log) : "";
            return text.length() > 4_000 ? text.substring(text.length() - 4_000) : text;
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    @Override
    public void close() {
        stop();
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            // a leftover log file is harmless
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
