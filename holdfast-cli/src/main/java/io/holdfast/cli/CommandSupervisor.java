package io.holdfast.cli;

import io.holdfast.Durations;
import sun.misc.Signal;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Owns the COMMAND of {@code run} and {@code lead}: starts it from the calling (main) thread, passes signals on,
 * terminates it (SIGTERM, then SIGKILL after the grace period) when the hold or the leadership is lost. Signal
 * handlers and the loss listener run on their own threads.
 */
final class CommandSupervisor {
    enum Start { STARTED, SIGNALLED, LOST, FAILED }

    private static final List<String> FORWARDED = List.of("INT", "TERM", "HUP");
    private static final Duration MAX_GRACE = Duration.ofDays(1);

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

    CommandSupervisor(PrintWriter err, Duration grace) {
        this.err = err;
        this.grace = grace;
    }

    /**
     * Checks a {@code --grace} value.
     *
     * @throws IllegalArgumentException saying what is allowed
     */
    static Duration requireGrace(Duration grace) {
        if (grace.isNegative() || grace.compareTo(MAX_GRACE) > 0) {
            throw new IllegalArgumentException("--grace " + Durations.format(grace) + " is too "
                    + (grace.isNegative() ? "short" : "long") + "; allowed: 0 to " + Durations.format(MAX_GRACE));
        }
        return grace;
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

    /**
     * Starts the child unless a signal came first or {@code stillHeld} says the hold (or leadership) is gone.
     * Call from the main thread.
     */
    synchronized Start start(ProcessBuilder builder, BooleanSupplier stillHeld) {
        if (pendingSignal != null) {
            Thread.interrupted(); // the handler's interrupt found no wait; the release must not see it
            return Start.SIGNALLED;
        }
        if (!stillHeld.getAsBoolean()) {
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

    /**
     * Prints why COMMAND was not started and returns the exit status for it.
     *
     * @param lostBeforeStart the message for {@link Start#LOST}, after "holdfast: "
     */
    int notStarted(Start start, String command, String lostBeforeStart) {
        switch (start) {
            case SIGNALLED -> {
                String signal = pendingSignal();
                err.println("holdfast: got SIG" + signal + " before '" + command + "' started; nothing was run");
                return 128 + Processes.signalNumber(signal);
            }
            case LOST -> {
                err.println("holdfast: " + lostBeforeStart + "; nothing was run");
                return ExitCodes.HOLD_LOST;
            }
            default -> {
                err.println("holdfast: cannot run '" + command + "': " + startError());
                return ExitCodes.CANNOT_START;
            }
        }
    }

    /**
     * The hold or leadership ({@code what}, for example "the hold on 'job' (token 7)") was lost: SIGTERM to the
     * child now, SIGKILL after the grace period. Nothing if the child is not running.
     */
    void lost(String what, String reason) {
        Process target;
        synchronized (this) {
            if (child == null || childExited || !child.isAlive()) {
                return; // the main thread sees the loss when it releases
            }
            terminatedForLoss = true;
            target = child;
        }
        err.println("holdfast: lost " + what + ": " + reason
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
