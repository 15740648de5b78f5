package io.holdfast.testkit.torture;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Sends SIGSTOP and SIGCONT, which Java cannot, through one long-lived {@code sh} whose built-in
 * {@code kill} runs without starting a process: a stop reaches a holder within a millisecond or so,
 * while it is still inside its critical section, instead of after a {@code fork}.
 */
final class Signals implements AutoCloseable {
    private final Process shell;
    private final OutputStream in;
    private final BufferedReader out;

    Signals() throws IOException {
        shell = new ProcessBuilder("sh").redirectErrorStream(true).start();
        in = shell.getOutputStream();
        out = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * Sends {@code signal} (STOP, CONT, TERM, KILL...) to {@code pid}.
     *
     * @return whether kill reported success (false if the process is gone)
     */
    synchronized boolean send(long pid, String signal) throws IOException {
        if (!signal.matches("[A-Z]+")) {
            throw new IllegalArgumentException("signal name expected, got " + signal);
        }
        in.write(("kill -s " + signal + " " + pid + " 2>/dev/null && echo ok || echo failed\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        String reply = out.readLine();
        if (reply == null) {
            throw new IOException("the signalling shell exited");
        }
        return reply.equals("ok");
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException e) {
            // gone already
        }
        shell.destroy();
    }
}
