package io.holdfast.testkit.torture.net;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Runs inside a namespace for {@link NetworkTest}: echoes each line of every TCP connection on port
 * {@code args[0]}, and prints {@code udp TEXT} for every UDP datagram that reaches the same port.
 * Prints {@code listening} once both sockets are bound; exits when its standard input ends.
 */
public final class EchoProbe {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        ServerSocket tcp = new ServerSocket(port);
        DatagramSocket udp = new DatagramSocket(port);
        Thread udpReader = new Thread(() -> {
            byte[] buf = new byte[512];
            while (true) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    udp.receive(p);
                } catch (Exception e) {
                    return;
                }
                say("udp " + new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8).trim());
            }
        });
        udpReader.setDaemon(true);
        udpReader.start();
        Thread acceptor = new Thread(() -> {
            while (true) {
                try {
                    Socket s = tcp.accept();
                    Thread t = new Thread(() -> echo(s));
                    t.setDaemon(true);
                    t.start();
                } catch (Exception e) {
                    return;
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        say("listening");
        while (System.in.read() >= 0) {
            // until the test closes our input
        }
        System.exit(0);
    }

    private static void echo(Socket s) {
        try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
             PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println("echo " + line);
            }
        } catch (Exception e) {
            // connection gone
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
