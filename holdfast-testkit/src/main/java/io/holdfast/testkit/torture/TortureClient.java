package io.holdfast.testkit.torture;

import io.holdfast.DistributedLock;
import io.holdfast.Durations;
import io.holdfast.Hold;
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
 * <p>Deliberately, it never calls {@link Hold#checkValid()} before writing: a real client's check can be
 * followed by a GC pause, and the harness puts the pause right there. Only the resource's fencing check
 * stands between a stale holder and the counters.
 *
 * <p>It talks to the runner over its standard streams: it prints {@code READY} once connected,
 * {@code HOLD <token>} after each acquire, {@code READ <token> <ms>} once it has read the counters (it then
 * pauses that many milliseconds before writing), {@code FREE} before each release; it stops after the current
 * round when it reads {@code STOP} or its standard input ends (the runner is gone), and in any case after
 * {@code --max-lifetime}.
 *
 * <p>Usage: {@code TortureClient --uri URI --register JDBC_URL --run RUN_ID --lock NAME --client N
 * --incarnation I --history FILE --lease D --think D --wait D --seed S --max-lifetime D}.
 */
public final class TortureClient {
    /** Printed once the client is connected and about to loop. */
    public static final String READY = "READY";
    private static final long RETRY_PAUSE_MS = 200;

    private final Map<String, String> args;
    private final PrintStream out = System.out;
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
        Duration lease = Durations.parse(arg("lease"));
        Duration think = Durations.parse(arg("think"));
        Duration wait = Durations.parse(arg("wait"));
        long deadline = System.nanoTime() + Durations.parse(arg("max-lifetime")).toNanos();
        Random random = new Random(Long.parseLong(arg("seed")) * 1_000_003L + client * 1009L + incarnation);
        watchInput();
        try (History.Writer history = new History.Writer(Path.of(arg("history")), client, incarnation)) {
            history.record(Event.OP_START, Event.OK, 0, ProcessHandle.current().pid(), "pid");
            Holdfast holdfast = connect(history, deadline, client, incarnation);
            Register register = holdfast == null ? null : openRegister(history, deadline);
            if (holdfast != null && register != null) {
                try {
                    say(READY);
                    DistributedLock lock = holdfast.lock(arg("lock"), lease, true);
                    while (!stopping && System.nanoTime() - deadline < 0) {
                        round(lock, register, history, think, wait, random);
                    }
                } finally {
                    closeQuietly(register);
                    holdfast.close();
                }
            }
            history.record(Event.OP_STOP, Event.OK, 0, 0, stopping ? "told to stop" : "end of lifetime");
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

    private void round(DistributedLock lock, Register register, History.Writer history, Duration think, Duration wait,
                       Random random) throws InterruptedException {
        history.record(Event.OP_ACQUIRE, Event.INVOKE, 0, 0, "");
        Hold hold;
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
        history.record(Event.OP_ACQUIRE, Event.OK, token, 0, "");
        hold.onLost((h, reason) -> history.record(Event.OP_LOST, Event.OK, token, 0, reason));
        say("HOLD " + token);
        try {
            critical(register, history, token, think, random);
        } finally {
            say("FREE");
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
    private void critical(Register register, History.Writer history, long token, Duration think, Random random)
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
        say("READ " + token + " " + pause); // the runner's pause and kill aim here: between read and write
        if (pause > 0) {
            Thread.sleep(pause); // where the harness's SIGSTOP usually lands
        }
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

    private void watchInput() {
        Thread watcher = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.trim().equals("STOP")) {
                        break;
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
