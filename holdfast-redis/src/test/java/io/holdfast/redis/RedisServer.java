package io.holdfast.redis;

import io.holdfast.testkit.LoopbackPorts;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} process (Debian's {@code /usr/bin/redis-server}) on a free loopback port, in a
 * temporary directory, without persistence. Stopped by {@link #close()}, and by a shutdown hook if a test
 * run ends without it, so no server outlives the tests.
 */
final class RedisServer implements AutoCloseable {
    static final String REDIS_SERVER = "/usr/bin/redis-server";
    static final String REDIS_CLI = "/usr/bin/redis-cli";
    private static final Set<RedisServer> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(RedisServer::kill), "redis-server-reaper"));
    }

    final int port;
    final Path dir;
    private final List<String> command;
    private Process process;

    private RedisServer(int port, Path dir, List<String> command) {
        this.port = port;
        this.dir = dir;
        this.command = command;
    }

    /** A plain master. */
    static RedisServer start(String... extra) {
        return start(false, extra);
    }

    /**
     * Starts a server with {@code extra} configuration ({@code --name value} pairs) and waits until it answers PING.
     *
     * @param sentinel run as a Sentinel (its config file is written to the server's directory)
     */
    static RedisServer start(boolean sentinel, String... extra) {
        if (!Files.isExecutable(Path.of(REDIS_SERVER))) {
            throw new IllegalStateException(REDIS_SERVER + " is missing: run scripts/services (it installs the redis-server package)");
        }
        int port = LoopbackPorts.unusedPort();
        Path dir;
        try {
            dir = Files.createTempDirectory("holdfast-redis-" + port + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(REDIS_SERVER);
        if (sentinel) {
            Path conf = dir.resolve("sentinel.conf");
            try {
                Files.writeString(conf, "");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            cmd.add(conf.toString());
            cmd.add("--sentinel");
        }
        cmd.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(),
                "--daemonize", "no", "--logfile", dir.resolve("redis.log").toString()));
        if (!sentinel) {
            cmd.addAll(List.of("--save", "", "--appendonly", "no"));
        }
        cmd.addAll(List.of(extra));
        RedisServer server = new RedisServer(port, dir, cmd);
        server.launch();
        return server;
    }

    private void launch() {
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        RUNNING.add(this);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited: " + log());
            }
            try {
                if ("PONG".equals(call("PING"))) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            sleep(50);
        }
        kill();
        throw new IllegalStateException("redis-server on port " + port + " did not answer within 30s: " + log());
    }

    String address() {
        return "127.0.0.1:" + port;
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /**
     * Sends one command and returns its reply: a String (simple or bulk; errors start with "-"), a Long,
     * a List, or null.
     */
    Object call(String... words) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            s.setSoTimeout(10_000);
            StringBuilder req = new StringBuilder("*").append(words.length).append("\r\n");
            for (String w : words) {
                req.append('$').append(w.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(w).append("\r\n");
            }
            OutputStream out = s.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return read(new java.io.DataInputStream(new java.io.BufferedInputStream(s.getInputStream())));
        }
    }

    /** {@link #call} as text (replies that are not strings are shown with toString). */
    String command(String... words) throws IOException {
        return String.valueOf(call(words));
    }

    private static Object read(java.io.DataInputStream in) throws IOException {
        String line = line(in);
        char type = line.charAt(0);
        String rest = line.substring(1);
        switch (type) {
            case '+':
                return rest;
            case '-':
                return line;
            case ':':
                return Long.parseLong(rest);
            case '$': {
                int len = Integer.parseInt(rest);
                if (len < 0) {
                    return null;
                }
                byte[] data = new byte[len + 2];
                in.readFully(data);
                return new String(data, 0, len, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(rest);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("unexpected reply line: " + line);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\r') {
                in.read(); // \n
                return b.toString();
            }
            b.append((char) c);
        }
        throw new IOException("connection closed mid-reply");
    }

    /** {@code INFO section} as text. */
    String info(String section) {
        try {
            return command("INFO", section);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One field of INFO, or null. */
    String infoField(String section, String field) {
        for (String line : info(section).split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1);
            }
        }
        return null;
    }

    /** Calls of one command (lower case, e.g. evalsha) since start or CONFIG RESETSTAT, from INFO commandstats. */
    long commandCalls(String command) {
        String stats = infoField("commandstats", "cmdstat_" + command);
        if (stats == null) {
            return 0;
        }
        for (String part : stats.split(",")) {
            if (part.startsWith("calls=")) {
                return Long.parseLong(part.substring(6));
            }
        }
        return 0;
    }

    /** SIGSTOP: the server stops in its tracks (its data and sockets stay, nothing is read or answered). */
    void pause() {
        io.holdfast.testkit.Pause.freeze(process);
    }

    /** SIGCONT after {@link #pause()}. */
    void resume() {
        io.holdfast.testkit.Pause.thaw(process);
    }

    /** SIGKILL: the server dies at once, without saving or telling anyone. */
    void kill() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly(); // SIGKILL ends a stopped process too
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
            Path log = dir.resolve("redis.log");
            String text = Files.exists(log) ? Files.readString(log) : "";
            Path out = dir.resolve("stdout.log");
            text += Files.exists(out) ? Files.readString(out) : "";
            return text.length() > 4_000 ? text.substring(text.length() - 4_000) : text;
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    @Override
    public void close() {
        kill();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover temp directory is harmless
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

    /** Runs redis-cli with {@code args}; returns its output, failing if it does not exit 0 within 60s. */
    static String cli(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(REDIS_CLI);
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(cmd + " failed: " + new String(out, StandardCharsets.UTF_8));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
