package io.holdfast.testkit.torture.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the short administrative commands ({@code ip}, {@code nft}, {@code tc}, {@code ss}) the network needs. */
final class Commands {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private Commands() {
    }

    /** The outcome of one command: its exit status and its merged output. */
    record Outcome(int status, String output) {
        boolean ok() {
            return status == 0;
        }
    }

    /** Runs {@code command}, feeding it {@code input} (or nothing), and waits for it (30 s at most). */
    static Outcome run(List<String> command, String input) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            if (input != null) {
                in.write(input.getBytes(StandardCharsets.UTF_8));
            }
        }
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out after " + TIMEOUT.toSeconds() + " s: " + String.join(" ", command));
            }
            return new Outcome(p.exitValue(), out.strip());
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
    }

    /** Runs {@code command} and returns its output; throws, with the output, if it fails. */
    static String check(String... command) throws IOException {
        return checkWithInput(null, command);
    }

    /** As {@link #check(String...)}, feeding {@code input} to its standard input. */
    static String checkWithInput(String input, String... command) throws IOException {
        Outcome o = run(List.of(command), input);
        if (!o.ok()) {
            throw new IOException("'" + String.join(" ", command) + "' failed (exit " + o.status() + "): " + o.output());
        }
        return o.output();
    }
}
