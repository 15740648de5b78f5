package io.holdfast.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM running a {@code main} class on this JVM's class path, as a separate process: what the
 * suite uses to stand for "another machine's holder" that can be killed with SIGKILL.
 *
 * <p>Its standard output and error are merged and collected line by line. Its standard input stays
 * open for as long as this object lives, so a child that watches its input (as {@link HolderProcess}
 * does) exits on its own if this JVM dies without killing it.
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final String description;
    private final BlockingQueue<String> unread = new LinkedBlockingQueue<>();
    private final List<String> transcript = new ArrayList<>();
    private final Thread reader;

    private ChildJvm(Process process, String description) {
        this.process = process;
        this.description = description;
        this.reader = new Thread(this::readOutput, "child-jvm-" + process.pid() + "-output");
        this.reader.setDaemon(true);
        this.reader.start();
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM, using the {@code java} of this JVM and
     * this JVM's class path ({@code java.class.path}).
     */
    public static ChildJvm start(Class<?> mainClass, String... args) throws IOException {
        return start(Path.of(System.getProperty("java.home"), "bin", "java"), mainClass, args);
    }

    /** As {@link #start(Class, String...)}, with another {@code java} executable (a newer JDK). */
    public static ChildJvm start(Path java, Class<?> mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.add("-Xmx128m");
        command.add("-XX:TieredStopAtLevel=1"); // starts faster; the child does little work
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new ChildJvm(process, mainClass.getSimpleName() + " " + String.join(" ", args));
    }

    /** The child's process id. */
    public long pid() {
        return process.pid();
    }

    /** Whether the child is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for the next output line that matches {@code wanted}, skipping others.
     *
     * @return the matching line
     * @throws IllegalStateException with the child's output so far, if the child exits first or no
     *         matching line appears within {@code timeout}
     */
    public String awaitLine(Predicate<String> wanted, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("child '" + description + "' printed no expected line within "
                        + timeout + "; output so far:\n" + transcript());
            }
            String line = unread.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS);
            if (line != null) {
                if (wanted.test(line)) {
                    return line;
                }
            } else if (!process.isAlive() && !reader.isAlive() && unread.isEmpty()) {
                throw new IllegalStateException("child '" + description + "' exited with status " + process.exitValue()
                        + " before printing the expected line; output:\n" + transcript());
            }
        }
    }

    /**
     * Kills the child with SIGKILL ({@link Process#destroyForcibly()}) and waits for it to be gone.
     *
     * @throws IllegalStateException if it is still alive 30 seconds later
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("child '" + description + "' (pid " + pid() + ") survived SIGKILL for 30s");
        }
    }

    /** Everything the child printed so far. */
    public String transcript() {
        synchronized (transcript) {
            return String.join("\n", transcript);
        }
    }

    /** Kills the child if it is still running. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }

    private void readOutput() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (transcript) {
                    transcript.add(line);
                }
                unread.add(line);
            }
        } catch (IOException e) {
            synchronized (transcript) {
                transcript.add("(reading the child's output failed: " + e + ")");
            }
        }
    }

    @Override
    public String toString() {
        return "ChildJvm[pid " + process.pid() + ", " + description + "]";
    }
}
