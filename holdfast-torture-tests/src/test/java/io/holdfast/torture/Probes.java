package io.holdfast.torture;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Whether a server on a loopback port answers one line of its text protocol. */
final class Probes {
    private Probes() {
    }

    /** Sends {@code request} and checks that the first reply line starts with {@code expected}; false on any error. */
    static boolean answers(int port, String request, String expected) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            s.setSoTimeout(2_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String line = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            return line != null && line.startsWith(expected);
        } catch (IOException e) {
            return false;
        }
    }
}
