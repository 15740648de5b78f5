package io.holdfast.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP proxy that can hold back the server's replies: while stalled, bytes from the server
 * wait in the proxy; {@link #dropStalledAndResume()} then closes every connection, so the held replies
 * are lost while the requests that caused them were carried out. That is a lost reply, exactly.
 */
final class StallingProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> live = ConcurrentHashMap.newKeySet();
    private volatile boolean stalled;
    private volatile boolean closed;

    StallingProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "stalling-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** From now on, replies from the server are held back. */
    void stallReplies() {
        stalled = true;
    }

    /** Closes every connection (losing the held replies) and forwards normally again. */
    void dropStalledAndResume() {
        for (Socket s : live) {
            closeQuietly(s);
        }
        stalled = false;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
                live.add(client);
                live.add(upstream);
                pump(client, upstream, false);
                pump(upstream, client, true);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to, boolean replies) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    while (replies && stalled && !from.isClosed() && !closed) {
                        Thread.sleep(5);
                    }
                    if (from.isClosed()) {
                        break;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // closed
            } finally {
                live.remove(from);
                live.remove(to);
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "stalling-proxy-" + (replies ? "down" : "up"));
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        dropStalledAndResume();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // nothing to do
        }
    }
}
