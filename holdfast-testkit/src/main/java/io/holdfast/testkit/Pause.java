package io.holdfast.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/**
 * Freezes and thaws a server process the tests started, with SIGSTOP and SIGCONT: a frozen server keeps its
 * data and its sockets open but reads and answers nothing, as a server in a long GC pause or a stopped VM.
 */
public final class Pause {
    private Pause() {
    }

    /** SIGSTOP to {@code process}. */
    public static void freeze(Process process) {
        signal(process, "STOP");
    }

    /** SIGCONT to {@code process}, after {@link #freeze}. */
    public static void thaw(Process process) {
        signal(process, "CONT");
    }

    private static void signal(Process process, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + process.pid(), e);
        }
    }
}
