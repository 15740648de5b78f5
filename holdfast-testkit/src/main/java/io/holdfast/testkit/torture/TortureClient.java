package io.holdfast.testkit.torture;

import io.holdfast.Durations;
import io.holdfast.Holdfast;
import io.holdfast.LockLostException;
import io.holdfast.LockTimeoutException;
import io.holdfast.StoreUnavailableException;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * One client process of a torture run. It loops until told to stop: acquire the lock, claim the FENCED
 * counter with the token, read the three counters, pause a random short time, write each counter plus one
 * (guarded as its kind says), release. Every operation's invocation and completion goes to its history
 * file (see {@link Event}); nothing is checked here.
 *
 * <p>Deliberately, it never calls {@link io.holdfast.Hold#checkValid()} before writing: a real client's check can be
 * followed by a GC pause, and the harness puts the pause right there. Only the resource's fencing check
 * stands between a stale holder and the counters.
 *
 * <p>Just before writing, it records what {@link io.holdfast.Hold#isValid()} says (the time taken before the call):
 * a hold that says it is valid while another actor's hold has been granted is a mutual-exclusion violation
 * the checker can prove from the history alone.
 *
 * <p>With {@code --threads N} (N &gt; 1) the process runs N such loops on threads that share one Holdfast
 * client, each an actor of its own in the history (its thread number in the events' last column).
 *
 * <p>It talks to the runner over its standard streams: it prints {@code READY} once connected,
 * {@code HOLD <token> <thread>} after each acquire, {@code READ <token> <ms> <thread>} once it has read the
 * counters (it then pauses that many milliseconds before writing), {@code FREE <thread>} before each release.
 * {@code LINGER <ms>} on its input makes the next holder to finish its pause stay in its critical section up
 * to that long, checking {@code isValid()} every 100 ms (and recording it) until the hold says it is invalid,
 * as a long job under a lock would; it answers {@code LINGERING <token> <thread>}. {@code NOLINGER} withdraws
 * the request. It stops after the current round when it reads {@code STOP} or its standard input ends (the
 * runner is gone), and in any case after {@code --max-lifetime}.
 *
 * <p>Usage: {@code TortureClient --uri URI --register JDBC_URL --run RUN_ID --lock NAME --client N
 * --incarnation I --history FILE --lease D --think D --wait D --seed S --max-lifetime D [--threads N] [--permits N]
 * [--recipe LOCK|READ_WRITE|LEADER] [--clock-origin MICROS:NANOS]}. With {@code --recipe READ_WRITE} a round takes a read
 * or the write of the read-write lock NAME, and its acquire's event says which; with {@code LEADER} it campaigns in the
 * election NAME and resigns at the round's end. With {@code --permits N} (N &gt; 1) each round takes one permit of the semaphore NAME of
 * N permits instead of the lock NAME. With the runner's clock origin ({@link RunClock}) its events share the runner's
 * time line whatever its own wall clock says; its start event says how far its wall clock is off that line.
 */
public final class TortureClient {
    /** Printed once the client is connected and about to loop. */
    public static final String READY = "READY";
    private static final long RETRY_PAUSE_MS = 200;

    private final Map<String, String> args;
    private final PrintStream out = System.out;
    private final java.util.concurrent.atomic.AtomicLong lingerMs = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean stopping;

    private TortureClient(Map<String, String> args) {
        this.args = args;
    }

    /** Runs a client; see the class description for the arguments. */
    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            if (!argv[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + argv[i]);
            }
            args.put(argv[i].substring(2), argv[i + 1]);
        }
        new TortureClient(args).run();
        System.exit(0);
    }

    private String arg(String name) {
        String v = args.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing --" + name);
        }
        return v;
    }

    private void run() throws Exception {
        int client = Integer.parseInt(arg("client"));
        int incarnation = Integer.parseInt(arg("incarnation"));
        int threads = Integer.parseInt(args.getOrDefault("threads", "1"));
        long deadline = System.nanoTime() + Durations.parse(arg("max-lifetime")).toNanos();
        if (args.containsKey("clock-origin")) {
            RunClock.adopt(arg("clock-origin"));
        }
        watchInput();
        try (History.Writer history = new History.Writer(Path.of(arg("history")), client, incarnation)) {
            long now = RunClock.now();
            long wallClockOff = RunClock.wallClockMicros() - now;
            history.recordAt(now, Event.OP_START, Event.OK, 0, ProcessHandle.current().pid(), "pid" + (threads > 1 ? ", " + threads + " threads" : "")
                    + String.format(java.util.Locale.ROOT, ", wall clock %+.3fs off the run's clock", wallClockOff / 1e6));
            Holdfast holdfast = connect(history, deadline, client, incarnation);
            if (holdfast != null) {
                try {
                    if (threads == 1) {
                        actor(holdfast, history, 0, deadline, true);
                    } else {
                        java.util.List<Thread> all = new java.util.ArrayList<>();
                        java.util.concurrent.CountDownLatch registersOpen = new java.util.concurrent.CountDownLatch(threads);
                        for (int t = 1; t <= threads; t++) {
                            History.Writer mine = history.forThread(t);
                            int thread = t;
                            Thread th = new Thread(() -> {
                                try {
                                    actor(holdfast, mine, thread, deadline, false, registersOpen);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            }, "torture-actor-" + t);
                            all.add(th);
                            th.start();
                        }
                        if (registersOpen.await(2, java.util.concurrent.TimeUnit.MINUTES)) {
                            say(READY);
                        }
                        for (Thread th : all) {
                            th.join();
                        }
                    }
                } finally {
                    holdfast.close();
                }
            }
            history.record(Event.OP_STOP, Event.OK, 0, 0, stopping ? "told to stop" : "end of lifetime");
        }
    }

    private void actor(Holdfast holdfast, History.Writer history, int thread, long deadline, boolean sayReady) throws InterruptedException {
        actor(holdfast, history, thread, deadline, sayReady, null);
    }

    /** One actor's loop: its own register connection and random sequence, the process's shared client. */
    private void actor(Holdfast holdfast, History.Writer history, int thread, long deadline, boolean sayReady,
                       java.util.concurrent.CountDownLatch registersOpen) throws InterruptedException {
        int client = Integer.parseInt(arg("client"));
        int incarnation = Integer.parseInt(arg("incarnation"));
        Duration lease = Durations.parse(arg("lease"));
        Duration think = Durations.parse(arg("think"));
        Duration wait = Durations.parse(arg("wait"));
        Random random = new Random(Long.parseLong(arg("seed")) * 1_000_003L + client * 1009L + incarnation + thread * 7919L);
        Register register = openRegister(history, deadline);
        if (registersOpen != null) {
            registersOpen.countDown();
        }
        if (register == null) {
            return;
        }
        try {
            if (sayReady) {
                say(READY);
            }
            TortureLock lock = TortureLock.of(holdfast, arg("lock"), lease, Integer.parseInt(args.getOrDefault("permits", "1")),
                    TortureSettings.Recipe.valueOf(args.getOrDefault("recipe", "LOCK")), random);
            while (!stopping && System.nanoTime() - deadline < 0) {
                round(lock, register, history, thread, think, wait, random);
            }
        } finally {
            closeQuietly(register);
        }
    }

    /** Connects, retrying while the store is unreachable (a restart fault may be under way). */
    private Holdfast connect(History.Writer history, long deadline, int client, int incarnation) throws InterruptedException {
        while (!stopping && System.nanoTime() - deadline < 0) {
            try {
                return Holdfast.builder(arg("uri")).holderName("torture-client-" + client + "." + incarnation).connect();
            } catch (StoreUnavailableException e) {
                history.record("connect", Event.FAIL, 0, 0, e.getMessage());
                Thread.sleep(RETRY_PAUSE_MS);
            }
        }
        return null;
    }

    private Register openRegister(History.Writer history, long deadline) throws InterruptedException {
        while (!stopping && System.nanoTime() - deadline < 0) {
            try {
                return new Register(arg("register"), arg("run"));
            } catch (SQLException e) {
                history.record("register", Event.FAIL, 0, 0, e.getMessage());
                Thread.sleep(RETRY_PAUSE_MS);
            }
        }
        return null;
    }

    private void round(TortureLock lock, Register register, History.Writer history, int thread, Duration think, Duration wait,
                       Random random) throws InterruptedException {
        history.record(Event.OP_ACQUIRE, Event.INVOKE, 0, 0, "");
        TortureLock.Held hold;
        try {
            hold = lock.acquire(wait);
        } catch (LockTimeoutException e) {
            history.record(Event.OP_ACQUIRE, Event.FAIL, 0, 0, "timeout");
            return;
        } catch (RuntimeException e) {
            // The contract: a failed acquire leaves nothing held.
            history.record(Event.OP_ACQUIRE, Event.FAIL, 0, 0, e.getClass().getSimpleName() + ": " + e.getMessage());
            Thread.sleep(RETRY_PAUSE_MS);
            return;
        }
        long token = hold.fencingToken();
        history.record(Event.OP_ACQUIRE, Event.OK, token, 0, hold.kind());
        hold.onLost((h, reason) -> history.record(Event.OP_LOST, Event.OK, token, 0, reason));
        say("HOLD " + token + " " + thread);
        try {
            critical(hold, register, history, thread, token, think, random);
        } finally {
            say("FREE " + thread);
            history.record(Event.OP_RELEASE, Event.INVOKE, token, 0, "");
            try {
                hold.close();
                history.record(Event.OP_RELEASE, Event.OK, token, 0, "");
            } catch (LockLostException e) {
                history.record(Event.OP_RELEASE, Event.FAIL, token, 0, "lost: " + e.getMessage());
            } catch (RuntimeException e) {
                history.record(Event.OP_RELEASE, Event.INFO, token, 0, e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }

    /** Claim, read, pause, write: the work the lock is meant to protect. */
    private void critical(TortureLock.Held hold, Register register, History.Writer history, int thread, long token, Duration think, Random random)
            throws InterruptedException {
        boolean claimed;
        history.record(Event.OP_CLAIM, Event.INVOKE, token, 0, "");
        try {
            claimed = register.claim(token);
            history.record(Event.OP_CLAIM, claimed ? Event.OK : Event.FAIL, token, 0, claimed ? "" : "rejected: newer token");
        } catch (SQLException e) {
            claimed = false; // unknown whether it landed; not writing is safe either way
            history.record(Event.OP_CLAIM, Event.INFO, token, 0, e.getMessage());
        }
        long[] values;
        try {
            values = register.read();
        } catch (SQLException e) {
            history.record(Event.OP_READ, Event.FAIL, token, 0, e.getMessage());
            return;
        }
        for (Register.Kind kind : Register.Kind.ALL) {
            history.record(kind.readOp(), Event.OK, token, values[kind.ordinal()], "");
        }
        long pause = think.toMillis() == 0 ? 0 : random.nextInt((int) think.toMillis() + 1);
        say("READ " + token + " " + pause + " " + thread); // the runner's pause and kill aim here: between read and write
        if (pause > 0) {
            Thread.sleep(pause); // where the harness's SIGSTOP usually lands
        }
        long linger = lingerMs.getAndSet(0);
        if (linger > 0) {
            say("LINGERING " + token + " " + thread);
            long until = System.nanoTime() + linger * 1_000_000L;
            while (recordValidity(hold, history, token) && System.nanoTime() - until < 0 && !stopping) {
                Thread.sleep(100);
            }
        }
        recordValidity(hold, history, token);
        for (Register.Kind kind : Register.Kind.ALL) {
            if (kind == Register.Kind.FENCED && !claimed) {
                continue;
            }
            long value = values[kind.ordinal()] + 1;
            history.record(kind.writeOp(), Event.INVOKE, token, value, "");
            try {
                boolean applied = register.write(kind, value, token);
                history.record(kind.writeOp(), applied ? Event.OK : Event.FAIL, token, value, applied ? "" : "rejected by the fence");
            } catch (SQLException e) {
                history.record(kind.writeOp(), Event.INFO, token, value, e.getMessage());
            }
        }
    }

    /** Records whether the hold says it is valid, with the time taken before asking; returns what it said. */
    private static boolean recordValidity(TortureLock.Held hold, History.Writer history, long token) {
        long before = Event.now();
        boolean valid = hold.isValid();
        history.recordAt(before, Event.OP_VALID, valid ? Event.OK : Event.FAIL, token, 0, valid ? "" : String.valueOf(hold.lossReason()));
        return valid;
    }

    private void watchInput() {
        Thread watcher = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    String l = line.trim();
                    if (l.equals("STOP")) {
                        break;
                    } else if (l.startsWith("LINGER ")) {
                        lingerMs.set(Long.parseLong(l.substring(7).trim()));
                    } else if (l.equals("NOLINGER")) {
                        lingerMs.set(0);
                    }
                }
            } catch (IOException e) {
                // treat as end of input
            }
            stopping = true;
        }, "torture-stdin");
        watcher.setDaemon(true);
        watcher.start();
    }

    private void say(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // leaving anyway
        }
    }
}
