package io.holdfast.testkit.torture;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The runner's side of one client process ({@link TortureClient} in its own JVM): it follows what the
 * client says on its standard output, so the fault scheduler knows who holds the lock right now, and
 * tells it to stop through its standard input. Its standard error goes to a log file.
 */
final class ClientProcess {
    final int client;
    final int incarnation;
    final Process process;
    final long startMicros;
    final Path log;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final OutputStream stdin;
    private volatile long holding;
    private volatile String holderThread = "";
    private volatile long lingering;
    private volatile boolean readDone;
    private volatile long readPauseMs;
    private volatile long endMicros;
    private volatile boolean killed;

    private ClientProcess(int client, int incarnation, Process process, long startMicros, Path log) {
        this.client = client;
        this.incarnation = incarnation;
        this.process = process;
        this.startMicros = startMicros;
        this.log = log;
        this.stdin = process.getOutputStream();
        Thread reader = new Thread(this::follow, "torture-client-" + client + "." + incarnation + "-out");
        reader.setDaemon(true);
        reader.start();
    }

    static ClientProcess start(int client, int incarnation, List<String> command, Path log) throws IOException {
        long now = Event.now();
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        return new ClientProcess(client, incarnation, p, now, log);
    }

    private void follow() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals(TortureClient.READY)) {
                    ready.countDown();
                } else if (line.startsWith("HOLD ")) {
                    // HOLD token [thread]: the threads of one process take turns (the lock excludes them too)
                    String[] f = line.split(" ");
                    holding = Long.parseLong(f[1]);
                    holderThread = f.length > 2 ? f[2] : "";
                    readDone = false;
                } else if (line.startsWith("READ ")) {
                    String[] f = line.split(" ");
                    readPauseMs = f.length > 2 ? Long.parseLong(f[2]) : 0;
                    readDone = true;
                } else if (line.startsWith("LINGERING ")) {
                    lingering = Long.parseLong(line.split(" ")[1]);
                } else if (line.equals("FREE") || line.startsWith("FREE ")) {
                    String thread = line.length() > 5 ? line.substring(5).trim() : "";
                    if (thread.equals(holderThread)) {
                        holding = 0;
                        readDone = false;
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the process ended or said something else; its log has the details
        } finally {
            holding = 0;
            readDone = false;
            if (endMicros == 0) {
                endMicros = Event.now();
            }
        }
    }

    /** Waits until the client said it is connected; false if it did not within {@code timeout} or exited. */
    boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (ready.await(100, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (!process.isAlive()) {
                return false;
            }
        }
        return false;
    }

    /** The token of the hold the client says it has, or 0 if it says it holds nothing. */
    long holding() {
        return holding;
    }

    /** Whether the client holds the lock and has read the counters: it is in its pause before writing. */
    boolean betweenReadAndWrite() {
        return holding != 0 && readDone;
    }

    /**
     * Whether the client is between its read and its write with a pause of at least {@code ms} ahead of it:
     * a signal sent now reaches it in its sleep, not inside a database write (where, on a SQLite register,
     * a stopped client would hold the file's write lock).
     */
    boolean inPauseOfAtLeast(long ms) {
        return betweenReadAndWrite() && readPauseMs >= ms;
    }

    String name() {
        return client + "." + incarnation;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Asks the client to stop after its current round. */
    void requestStop() {
        tell("STOP");
    }

    /**
     * Asks the holder to stay in its critical section up to {@code ms} once its pause ends (checking its hold),
     * and waits up to {@code wait} for it to say it does.
     *
     * @return the token of the lingering hold, or 0 if none lingered (the request is then withdrawn)
     */
    long linger(long ms, Duration wait) throws InterruptedException {
        lingering = 0;
        tell("LINGER " + ms);
        long deadline = System.nanoTime() + wait.toNanos();
        while (lingering == 0 && System.nanoTime() - deadline < 0 && process.isAlive()) {
            Thread.sleep(1);
        }
        if (lingering == 0) {
            tell("NOLINGER");
        }
        return lingering;
    }

    private synchronized void tell(String line) {
        try {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            // it is gone already
        }
    }

    /** SIGKILL (also ends a stopped process); records the time first. Waits for it to be gone. */
    void kill() throws InterruptedException {
        if (process.isAlive()) {
            endMicros = Event.now();
            killed = true;
            process.destroyForcibly();
        }
        process.waitFor(30, TimeUnit.SECONDS);
    }

    ClientLife life() {
        return new ClientLife(client, incarnation, process.pid(), startMicros, endMicros, killed);
    }
}
