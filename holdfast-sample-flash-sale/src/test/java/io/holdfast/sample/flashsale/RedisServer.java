package io.holdfast.sample.flashsale;

import io.holdfast.testkit.LoopbackPorts;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private {@code redis-server} on a free loopback port, without persistence, as holdfast-spring-boot-starter's
 * tests start one: under a small shell that kills it when this JVM's end of its standard input closes, so it never
 * outlives the test JVM.
 */
final class RedisServer implements AutoCloseable {
    private static final String BINARY = "/usr/bin/redis-server";

    final int port;
    private final Path dir;
    private final Process shell;
    private final long pid;

    private RedisServer(int port, Path dir, Process shell, long pid) {
        this.port = port;
        this.dir = dir;
        this.shell = shell;
        this.pid = pid;
    }

    /** Starts one and waits until it answers PING. */
    static RedisServer start() throws Exception {
        if (!Files.isExecutable(Path.of(BINARY))) {
            throw new IllegalStateException(BINARY + " is missing: run scripts/services (it installs the servers the tests need)");
        }
        int port = LoopbackPorts.unusedPort();
        Path dir = Files.createTempDirectory("holdfast-flash-sale-redis-");
        ProcessBuilder builder = new ProcessBuilder("sh", "-c",
                "\"$0\" \"$@\" >>\"$SERVER_LOG\" 2>&1 & echo $!; cat >/dev/null; kill -9 $! 2>/dev/null",
                BINARY, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(),
                "--save", "", "--appendonly", "no").redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("SERVER_LOG", dir.resolve("server.log").toString());
        Process shell = builder.start();
        String line = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.US_ASCII)).readLine();
        if (line == null) {
            throw new IllegalStateException(BINARY + " did not start");
        }
        RedisServer server = new RedisServer(port, dir, shell, Long.parseLong(line.trim()));
        server.awaitPong();
        return server;
    }

    private void awaitPong() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                String log = Files.readString(dir.resolve("server.log"));
                close();
                throw new IllegalStateException("redis-server on port " + port + " exited: " + log);
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                s.setSoTimeout(2000);
                s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                if ("+PONG".equals(new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine())) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(50);
        }
        close();
        throw new IllegalStateException("redis-server on port " + port + " not ready within 60s", last);
    }

    @Override
    public void close() {
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
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
