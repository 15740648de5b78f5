package io.holdfast.cli;

import io.holdfast.DistributedLock;
import io.holdfast.Durations;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import io.holdfast.LockLostException;
import io.holdfast.LockNames;
import io.holdfast.StoreUnavailableException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code holdfast run NAME -- COMMAND...}: runs COMMAND while holding NAME. The lease is renewed while
 * COMMAND runs; if the hold is lost anyway, COMMAND is terminated and the exit status says so.
 */
@Command(name = "run", sortOptions = false,
        customSynopsis = "holdfast run [--uri=URI] [--wait=DURATION] [--lease=DURATION] [--grace=DURATION] NAME -- COMMAND [ARG...]",
        description = {"Runs COMMAND while holding lock NAME, renewing the lease while it runs, and exits with "
                + "COMMAND's status.",
                "COMMAND gets HOLDFAST_LOCK (the name) and HOLDFAST_FENCING_TOKEN (greater than every token issued "
                        + "before for NAME) in its environment, and holdfast's stdin, stdout and stderr.",
                "SIGINT, SIGTERM and SIGHUP are passed on to COMMAND; the lock is released once it exits. If the hold "
                        + "is lost while COMMAND runs, COMMAND gets SIGTERM (SIGKILL after --grace) and holdfast exits 76. "
                        + "If holdfast itself is killed, the lock frees when its lease runs out and COMMAND gets SIGTERM.",
                "Put -- before COMMAND so that its options are not read as holdfast's."})
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    StoreOptions store;
    @Option(names = "--wait", paramLabel = "DURATION", defaultValue = "0s", converter = DurationConverter.class,
            description = "How long to wait for the lock; 0 (the default) gives up at once, for cron jobs that "
                    + "must run on one host. Durations: 500ms, 10s, 5m, 2h, PT10S.")
    Duration wait;
    /** Null: the client's default lease (30 s, or the store's longest if shorter, as a ZooKeeper ensemble's may be). */
    @Option(names = "--lease", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Lease of the hold (default: 30s, or the longest the store keeps if that is shorter), renewed "
                    + "every third of it while COMMAND runs; if holdfast dies, the lock frees within this time. Allowed: "
                    + "100ms to 7d, narrowed by the store (ZooKeeper: 1s to its maxSessionTimeout).")
    Duration lease;
    private static final Duration MAX_GRACE = Duration.ofDays(1);
    @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
            description = "When the hold is lost: time between SIGTERM and SIGKILL to COMMAND (default: ${DEFAULT-VALUE}).")
    Duration grace;
    @Parameters(index = "0", paramLabel = "NAME", description = "The lock name.")
    String name;
    @Parameters(index = "1..*", arity = "1..*", paramLabel = "COMMAND", description = "The command and its arguments.")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        validate();
        if (Processes.findExecutable(command.get(0)).isEmpty()) {
            err.println("holdfast: cannot run '" + command.get(0) + "': "
                    + (command.get(0).contains("/") ? "no such executable file" : "not found in PATH"));
            err.flush();
            return ExitCodes.CANNOT_START;
        }
        try (Holdfast holdfast = store.connect()) {
            DistributedLock lock = lease == null ? holdfast.lock(name) : holdfast.lock(name, lease, true);
            Supervisor supervisor = new Supervisor(err, grace);
            supervisor.install();
            try {
                return runHolding(holdfast, lock, supervisor, err);
            } finally {
                supervisor.finished();
                err.flush();
            }
        }
    }

    private void validate() {
        try {
            LockNames.requireValid(name);
            if (lease != null) {
                Durations.requireLease(lease); // before connecting; the store's own range is checked once connected
            }
            Durations.requireWait(wait);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (grace.isNegative() || grace.compareTo(MAX_GRACE) > 0) {
            throw new ParameterException(spec.commandLine(), "--grace " + Durations.format(grace) + " is too "
                    + (grace.isNegative() ? "short" : "long") + "; allowed: 0 to " + Durations.format(MAX_GRACE));
        }
    }

    private int runHolding(Holdfast holdfast, DistributedLock lock, Supervisor supervisor, PrintWriter err) {
        Optional<Hold> acquired;
        try {
            acquired = wait.isZero() ? lock.tryAcquire() : lock.tryAcquire(wait);
        } catch (InterruptedException e) {
            String signal = supervisor.pendingSignal();
            err.println("holdfast: got SIG" + signal + " while waiting for '" + name + "'; nothing was run");
            return 128 + Processes.signalNumber(signal);
        }
        if (acquired.isEmpty()) {
            err.println("holdfast: lock '" + name + "' " + (wait.isZero() ? "is taken; not waiting (--wait 0)"
                    : "was not acquired within " + Durations.format(wait)) + heldBy(holdfast));
            return ExitCodes.NOT_ACQUIRED;
        }
        Hold hold = acquired.get();
        hold.onLost((h, reason) -> supervisor.holdLost(name, h.fencingToken(), reason));
        ProcessBuilder builder = new ProcessBuilder(childCommand()).inheritIO();
        builder.environment().put("HOLDFAST_LOCK", name);
        builder.environment().put("HOLDFAST_FENCING_TOKEN", Long.toString(hold.fencingToken()));

        Supervisor.Start start = supervisor.start(builder, hold);
        if (start != Supervisor.Start.STARTED) {
            releaseQuietly(hold, err);
            return switch (start) {
                case SIGNALLED -> {
                    String signal = supervisor.pendingSignal();
                    err.println("holdfast: got SIG" + signal + " before '" + command.get(0) + "' started; nothing was run");
                    yield 128 + Processes.signalNumber(signal);
                }
                case LOST -> {
                    err.println("holdfast: the hold on '" + name + "' was lost before '" + command.get(0) + "' started: "
                            + hold.lossReason() + "; nothing was run");
                    yield ExitCodes.HOLD_LOST;
                }
                default -> {
                    err.println("holdfast: cannot run '" + command.get(0) + "': " + supervisor.startError());
                    yield ExitCodes.CANNOT_START;
                }
            };
        }
        int status = supervisor.awaitChild();
        boolean terminatedForLoss = supervisor.terminatedForLoss();
        String lostBeforeRelease = null;
        try {
            hold.close();
        } catch (LockLostException e) {
            lostBeforeRelease = e.getMessage();
        } catch (StoreUnavailableException e) {
            err.println("holdfast: warning: " + e.getMessage());
        }
        if (terminatedForLoss) {
            err.println("holdfast: '" + command.get(0) + "' was terminated (status " + status + ") because the hold on '"
                    + name + "' was lost: " + hold.lossReason());
            return ExitCodes.HOLD_LOST;
        }
        if (lostBeforeRelease != null) {
            // The loss came to light only as the command finished: part of its run may have overlapped another holder.
            err.println("holdfast: " + lostBeforeRelease + " ('" + command.get(0) + "' exited with status " + status + ")");
            return ExitCodes.HOLD_LOST;
        }
        return status;
    }

    private List<String> childCommand() {
        List<String> full = new ArrayList<>(Processes.parentDeathSignal("TERM"));
        full.addAll(command);
        return full;
    }

    private String heldBy(Holdfast holdfast) {
        try {
            return holdfast.admin().status(name).filter(LockInfo::held)
                    .map(i -> "; it is held by " + i.holder() + " (token " + i.fencingToken() + ", lease left "
                            + LockViews.leaseLeft(i.leaseRemaining()) + ")")
                    .orElse("");
        } catch (RuntimeException e) {
            return "";
        }
    }

    private static void releaseQuietly(Hold hold, PrintWriter err) {
        try {
            hold.close();
        } catch (RuntimeException e) {
            err.println("holdfast: warning: " + e.getMessage());
        }
    }

    /**
     * Owns the child process: starts it from the calling (main) thread, passes signals on, terminates it
     * when the hold is lost. Signal handlers and the hold-lost listener run on their own threads.
     */
    static final class Supervisor {
        enum Start { STARTED, SIGNALLED, LOST, FAILED }

        private static final List<String> FORWARDED = List.of("INT", "TERM", "HUP");

        private final PrintWriter err;
        private final Duration grace;
        private final Thread mainThread = Thread.currentThread();
        private final List<Signal> installed = new ArrayList<>();
        private final List<sun.misc.SignalHandler> previous = new ArrayList<>();
        // Guarded by this.
        private Process child;
        private String pendingSignal;
        private boolean childExited;
        private boolean terminatedForLoss;
        private String startError;

        Supervisor(PrintWriter err, Duration grace) {
            this.err = err;
            this.grace = grace;
        }

        void install() {
            for (String name : FORWARDED) {
                try {
                    Signal signal = new Signal(name);
                    previous.add(Signal.handle(signal, s -> received(s.getName())));
                    installed.add(signal);
                } catch (IllegalArgumentException e) {
                    // The JVM reserves it (for example with -Xrs); the default action stays.
                }
            }
        }

        /** Restores the JVM's own handlers. */
        void finished() {
            for (int i = 0; i < installed.size(); i++) {
                Signal.handle(installed.get(i), previous.get(i));
            }
        }

        synchronized String pendingSignal() {
            return pendingSignal == null ? "TERM" : pendingSignal;
        }

        synchronized boolean terminatedForLoss() {
            return terminatedForLoss;
        }

        synchronized String startError() {
            return startError;
        }

        private void received(String signal) {
            Process target;
            synchronized (this) {
                if (childExited) {
                    return; // releasing; exiting soon
                }
                if (child == null) {
                    if (pendingSignal == null) {
                        pendingSignal = signal;
                    }
                    mainThread.interrupt(); // abandons a wait for the lock
                    return;
                }
                target = child;
            }
            if (signal.equals("INT") && Processes.inForegroundOfTerminal()) {
                return; // Ctrl-C: the terminal sent SIGINT to the child's process group too
            }
            if (signal.equals("TERM")) {
                target.destroy();
            } else {
                Processes.signal(target.pid(), signal);
            }
        }

        /** Starts the child unless a signal came or the hold was lost first. Call from the main thread. */
        synchronized Start start(ProcessBuilder builder, Hold hold) {
            if (pendingSignal != null) {
                Thread.interrupted(); // the handler's interrupt found no wait; the release must not see it
                return Start.SIGNALLED;
            }
            if (!hold.isValid()) {
                return Start.LOST;
            }
            try {
                // Started from the main thread, which lives until the end: setpriv's parent-death signal
                // fires when the thread that started the child dies.
                child = builder.start();
                return Start.STARTED;
            } catch (IOException e) {
                startError = e.getMessage();
                return Start.FAILED;
            }
        }

        /** Waits for the child to exit; its status, 128+N if a signal N ended it. */
        int awaitChild() {
            Process p;
            synchronized (this) {
                p = child;
            }
            while (true) {
                try {
                    int status = p.waitFor();
                    synchronized (this) {
                        childExited = true;
                    }
                    Thread.interrupted(); // a signal's interrupt may have raced the start
                    return status;
                } catch (InterruptedException e) {
                    // Signals are passed to the child; keep waiting for it.
                }
            }
        }

        void holdLost(String name, long token, String reason) {
            Process target;
            synchronized (this) {
                if (child == null || childExited || !child.isAlive()) {
                    return; // the main thread sees the loss when it releases
                }
                terminatedForLoss = true;
                target = child;
            }
            err.println("holdfast: lost the hold on '" + name + "' (token " + token + "): " + reason
                    + "; sending SIGTERM to the command" + (grace.isZero() ? "" : ", SIGKILL in " + Durations.format(grace)));
            err.flush();
            target.destroy();
            Thread killer = new Thread(() -> {
                try {
                    if (!target.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                        err.println("holdfast: the command did not exit within " + Durations.format(grace) + "; sending SIGKILL");
                        err.flush();
                        target.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "holdfast-run-killer");
            killer.setDaemon(true);
            killer.start();
        }
    }
}
