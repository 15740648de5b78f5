package io.holdfast.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Process plumbing for {@code run} and {@code demo}: signals, PATH lookup, parent-death signals. */
final class Processes {
    private Processes() {
    }

    /** Signal numbers on Linux, for 128+N exit statuses. */
    static int signalNumber(String name) {
        return switch (name) {
            case "HUP" -> 1;
            case "INT" -> 2;
            case "QUIT" -> 3;
            case "KILL" -> 9;
            case "TERM" -> 15;
            default -> throw new IllegalArgumentException("unknown signal " + name);
        };
    }

    /**
     * Sends signal {@code name} (INT, TERM, HUP, STOP, CONT, ...) to {@code pid} through {@code kill(1)};
     * Java can only send TERM and KILL itself.
     *
     * @return whether kill reported success
     */
    static boolean signal(long pid, String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-s", name, Long.toString(pid))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * A prefix that makes the kernel send {@code signal} to the child when this JVM's spawning thread
     * dies (PR_SET_PDEATHSIG through setpriv(1)), or an empty list where setpriv is not installed.
     */
    static List<String> parentDeathSignal(String signal) {
        return findExecutable("setpriv")
                .map(p -> List.of(p.toString(), "--pdeathsig", signal, "--"))
                .orElse(List.of());
    }

    /** {@code command} started through {@link #parentDeathSignal} TERM, where setpriv is installed. */
    static List<String> withParentDeathSignal(List<String> command) {
        List<String> full = new ArrayList<>(parentDeathSignal("TERM"));
        full.addAll(command);
        return full;
    }

    /**
     * Resolves a command the way a shell would: a name with a slash is a path, anything else is looked up
     * in $PATH.
     *
     * @return the executable, or empty if there is none
     */
    static Optional<Path> findExecutable(String command) {
        if (command.isEmpty()) {
            return Optional.empty();
        }
        if (command.contains("/")) {
            Path p = Path.of(command);
            return Files.isRegularFile(p) && Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = System.getenv("PATH");
        if (path == null) {
            path = "/usr/local/bin:/usr/bin:/bin";
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, command);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Whether this process is in the foreground process group of a terminal. Then a key like Ctrl-C
     * sends its signal to the whole group, child included, and forwarding it would deliver it twice.
     */
    static boolean inForegroundOfTerminal() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"), StandardCharsets.US_ASCII);
            // Fields after "(comm)": state ppid pgrp session tty_nr tpgid ...
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long pgrp = Long.parseLong(f[2]);
            long ttyNr = Long.parseLong(f[4]);
            long tpgid = Long.parseLong(f[5]);
            return ttyNr != 0 && tpgid == pgrp;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The java executable of this JVM and its class path, to start worker JVMs. */
    static List<String> javaCommand() {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        return cmd;
    }
}
