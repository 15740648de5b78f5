package io.holdfast.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy whose {@link #blackHoleExisting()} silently swallows every byte of the connections
 * open at that moment, both ways, while keeping their sockets open (a NAT or conntrack entry that expired,
 * a moved VIP); connections made afterwards are forwarded normally. Test-only.
 */
final class BlackHoleProxy implements AutoCloseable {
    private final String host;
    private final int targetPort;
    private final ServerSocket server;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile boolean closed;

    private static final class Link {
        final Socket client;
        final Socket upstream;
        volatile boolean blackHoled;

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }
    }

    BlackHoleProxy(String host, int targetPort) throws IOException {
        this.host = host;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "black-hole-proxy-accept");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Connections accepted so far. */
    int accepted() {
        return accepted.get();
    }

    /** From now on every byte of the connections open now is dropped; their sockets stay open. */
    void blackHoleExisting() {
        links.forEach(l -> l.blackHoled = true);
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(host, targetPort), 5_000);
                Link link = new Link(client, upstream);
                links.add(link);
                accepted.incrementAndGet();
                pump(link, client, upstream);
                pump(link, upstream, client);
            } catch (IOException e) {
                // closed, or one failed connection: keep serving until closed
            }
        }
    }

    private void pump(Link link, Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (!link.blackHoled) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // closed
            } finally {
                close(link);
            }
        }, "black-hole-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void close(Link link) {
        if (link.blackHoled && !closed) {
            return; // a black hole never tells either side
        }
        links.remove(link);
        try {
            link.client.close();
            link.upstream.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Link l : links) {
            l.client.close();
            l.upstream.close();
        }
        links.clear();
    }
}
