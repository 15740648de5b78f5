package io.holdfast.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Starts the real {@code holdfast} as separate processes ({@code java -jar target/holdfast.jar} or the
 * {@code ./holdfast} launcher), each with its stdout and stderr in files, and cleans up after a test.
 */
final class CliProcesses implements AutoCloseable {
    static final Path JAR = Path.of(System.getProperty("holdfast.jar", "target/holdfast.jar")).toAbsolutePath();
    static final Path ROOT = Path.of(System.getProperty("holdfast.root", "..")).toAbsolutePath().normalize();
    static final Duration TIMEOUT = Duration.ofSeconds(120);

    private final Path dir;
    private final List<Running> started = new ArrayList<>();
    private final AtomicInteger count = new AtomicInteger();

    CliProcesses(Path dir) {
        this.dir = dir;
    }

    /** Starts {@code java -jar holdfast.jar ARGS}. */
    Running start(String... args) throws IOException {
        return start(Map.of(), args);
    }

    Running start(Map<String, String> env, String... args) throws IOException {
        return startJava(List.of(), env, args);
    }

    /** Starts {@code java JVM_ARGS -jar holdfast.jar ARGS}. */
    Running startJava(List<String> jvmArgs, Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(JAVA.toString(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-jar", JAR.toString()));
        cmd.addAll(List.of(args));
        return launch(cmd, env);
    }

    /** The java executable of the JVM running the tests, which is the one the build used. */
    static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    /** Starts {@code ./holdfast ARGS} from the repository root. */
    Running startLauncher(String... args) throws IOException {
        return startLauncher(ROOT.resolve("holdfast"), Map.of(), args);
    }

    /** Starts the launcher script at {@code launcher} (a copy, in a test's own tree) with {@code env} added. */
    Running startLauncher(Path launcher, Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(launcher.toString()));
        cmd.addAll(List.of(args));
        return launch(cmd, env);
    }

    /** Runs {@code java -jar holdfast.jar ARGS} to the end. */
    Running run(String... args) throws Exception {
        Running r = start(args);
        r.await();
        return r;
    }

    private Running launch(List<String> cmd, Map<String, String> env) throws IOException {
        int n = count.incrementAndGet();
        Path out = dir.resolve("p" + n + ".out");
        Path err = dir.resolve("p" + n + ".err");
        List<String> full = new ArrayList<>(DEFAULT_SIGNALS);
        full.addAll(cmd);
        ProcessBuilder pb = new ProcessBuilder(full).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE);
        pb.environment().remove("HOLDFAST_URI");
        pb.environment().remove("HOLDFAST_REBUILD");
        pb.environment().putAll(env);
        Running r = new Running(String.join(" ", cmd), pb.start(), out, err);
        started.add(r);
        return r;
    }

    /**
     * {@code env --default-signal=...}, which execs the command (same pid) with the signals the tests send set back to
     * their default action: a build started in the background by a non-interactive shell (`.ci/run &`) inherits SIGINT
     * and SIGQUIT ignored, and an ignored signal can be neither handled by the JVM nor trapped by a shell, so the
     * SIGINT test would test the caller's shell instead of holdfast. Empty where env has no --default-signal
     * (coreutils before 8.31).
     */
    private static final List<String> DEFAULT_SIGNALS = defaultSignals();

    private static List<String> defaultSignals() {
        List<String> prefix = List.of("env", "--default-signal=HUP,INT,QUIT,TERM");
        try {
            List<String> probe = new ArrayList<>(prefix);
            probe.add("true");
            Process p = new ProcessBuilder(probe).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0 ? prefix : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /** Polls {@code condition} every 50 ms until it holds or {@code timeout} passes. */
    static boolean eventually(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(50);
        }
        return condition.getAsBoolean();
    }

    /** Whether a process is gone: no /proc entry, or a zombie nobody has reaped yet. */
    static boolean isGone(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException e) {
            return true;
        }
    }

    /** Sends a signal by name through kill(1). */
    static void signal(long pid, String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-s", name, Long.toString(pid)).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -s " + name + " " + pid + " failed");
        }
    }

    @Override
    public void close() {
        for (Running r : started) {
            r.process.descendants().forEach(ProcessHandle::destroyForcibly);
            r.process.destroyForcibly();
        }
    }

    /** One started process. */
    static final class Running {
        final String command;
        final Process process;
        final Path out;
        final Path err;

        Running(String command, Process process, Path out, Path err) {
            this.command = command;
            this.process = process;
            this.out = out;
            this.err = err;
        }

        long pid() {
            return process.pid();
        }

        /** Waits (up to {@link #TIMEOUT}) and returns the exit status. */
        int await() throws InterruptedException {
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("still running after " + TIMEOUT + ": " + command + "\nstderr: " + stderr());
            }
            return process.exitValue();
        }

        int exitCode() throws InterruptedException {
            return await();
        }

        String stdout() {
            return read(out);
        }

        String stderr() {
            return read(err);
        }

        @Override
        public String toString() {
            return command + "\n--- stdout:\n" + stdout() + "--- stderr:\n" + stderr();
        }

        private static String read(Path p) {
            try {
                return Files.readString(p, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(unreadable: " + e + ")";
            }
        }
    }
}
