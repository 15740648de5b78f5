package io.holdfast.torture;

import io.holdfast.testkit.torture.StoreControl;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A store server as a real process from a Debian package ({@code redis-server}, {@code memcached},
 * {@code etcd}) on a loopback port, that the torture harness can kill and start again
 * ({@link StoreControl}). The backends' own server classes live in their test folders, which are not
 * published as test jars, so this is the harness's own small equivalent.
 *
 * <p>The server runs under a small shell that kills it with SIGKILL when this JVM's end of the shell's
 * standard input closes, so no server outlives the test JVM, even one killed with SIGKILL.
 */
final class LocalServer implements StoreControl, AutoCloseable {
    private static final Duration READY_WAIT = Duration.ofSeconds(60);

    private final String name;
    private final List<String> command;
    private final Path log;
    private final BooleanSupplier answers;
    private Process shell;
    private long pid;

    /**
     * @param name for messages and the report, such as {@code redis-server 127.0.0.1:6380}
     * @param command the server's command line
     * @param log where its output goes (appended across restarts)
     * @param answers true once the server answers its protocol
     */
    LocalServer(String name, List<String> command, Path log, BooleanSupplier answers) {
        this.name = name;
        this.command = List.copyOf(command);
        this.log = log;
        this.answers = answers;
    }

    static void requireExecutable(String path, String debianPackage) {
        if (!Files.isExecutable(Path.of(path))) {
            throw new IllegalStateException(path + " is missing: run scripts/services (it installs the " + debianPackage + " package)");
        }
    }

    @Override
    public String describe() {
        return name;
    }

    @Override
    public synchronized void start() throws Exception {
        List<String> cmd = new ArrayList<>(List.of("sh", "-c",
                "\"$0\" \"$@\" >>\"$TORTURE_SERVER_LOG\" 2>&1 & echo $!; cat >/dev/null; kill -9 $! 2>/dev/null"));
        cmd.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("TORTURE_SERVER_LOG", log.toString());
        shell = pb.start();
        String line = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (line == null) {
            throw new IOException(name + " did not start; log " + log);
        }
        pid = Long.parseLong(line.trim());
        long deadline = System.nanoTime() + READY_WAIT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!isAlive()) {
                throw new IllegalStateException(name + " exited at start; log:\n" + tail());
            }
            if (answers.getAsBoolean()) {
                return;
            }
            Thread.sleep(50);
        }
        kill();
        throw new IllegalStateException(name + " did not answer within " + READY_WAIT + "; log:\n" + tail());
    }

    boolean isAlive() {
        return pid != 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** SIGKILL, and waits until the process is gone. */
    @Override
    public synchronized void kill() throws Exception {
        ProcessHandle.of(pid).ifPresent(p -> {
            p.destroyForcibly();
            try {
                p.onExit().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(name + " (pid " + pid + ") survived SIGKILL", e);
            }
        });
        if (shell != null) {
            shell.getOutputStream().close();
            shell.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws Exception {
        kill();
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
