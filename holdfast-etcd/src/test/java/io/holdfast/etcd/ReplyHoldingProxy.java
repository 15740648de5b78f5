package io.holdfast.etcd;

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
 * A TCP proxy on 127.0.0.1 to one {@code host:port} that can hold the replies: after {@link #holdReplies()},
 * requests still reach the server (which applies them at once), but no byte of its answers reaches the client
 * until {@link #deliverReplies()}. To the client this is an outage in which its calls time out although the
 * server did what they asked: lost replies, in the order the server acted on the requests.
 */
final class ReplyHoldingProxy implements AutoCloseable {
    private final ServerSocket server;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean holding;
    private volatile boolean closed;

    ReplyHoldingProxy(String host, int port) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!closed) {
                try {
                    Socket client = server.accept();
                    Socket upstream = new Socket();
                    upstream.connect(new InetSocketAddress(host, port), 5000);
                    client.setTcpNoDelay(true);
                    upstream.setTcpNoDelay(true);
                    sockets.add(client);
                    sockets.add(upstream);
                    pump(client, upstream, false);
                    pump(upstream, client, true);
                } catch (IOException e) {
                    // closed, or one failed connection: keep serving until closed
                }
            }
        }, "reply-holding-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    void holdReplies() {
        holding = true;
    }

    void deliverReplies() {
        holding = false;
    }

    private void pump(Socket from, Socket to, boolean replies) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (from; to) {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    while (replies && holding && !closed) {
                        Thread.sleep(5);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // closed
            }
        }, "reply-holding-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // nothing to do
        }
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // nothing to do
            }
        }
    }
}
