package io.holdfast.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 with an ephemeral port that forwards every connection to one target
 * {@code host:port}, and can cut its clients off: {@link #cut()} closes every live connection and makes
 * the proxy drop each new one as soon as it is accepted, until {@link #restore()}. A client behind it
 * then sees exactly what a network partition from the store looks like to it (resets and failed
 * connects), while the store and its other clients run on. {@link #stall()} is the other kind of
 * partition: connections stay open but no byte gets through until {@link #unstall()}, so calls hang
 * until the client's own time-outs.
 *
 * <p>Thread-safe. Forwarding uses two daemon threads per connection; meant for tests, not for load.
 */
public final class LoopbackProxy implements AutoCloseable {
    private static final int CONNECT_TIMEOUT_MS = 5_000;
    private static final AtomicInteger PROXIES = new AtomicInteger();

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket server;
    private final Thread acceptor;
    private final Set<Socket> live = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private final String label;
    // Guarded by gate.
    private boolean cut;
    private volatile boolean closed;
    private volatile boolean stalled;
    private final AtomicBoolean stallAfterNextRequest = new AtomicBoolean();
    private volatile long replyDelayNanos;

    /**
     * Starts a proxy forwarding to {@code targetHost:targetPort}; it accepts connections once this
     * returns.
     *
     * @throws UncheckedIOException if no loopback port could be bound
     */
    public LoopbackProxy(String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        try {
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("could not bind a loopback port for a proxy to " + targetHost + ":" + targetPort, e);
        }
        this.label = "loopback-proxy-" + PROXIES.incrementAndGet() + "-" + server.getLocalPort() + "-to-" + targetPort;
        this.acceptor = new Thread(this::acceptLoop, label + "-accept");
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    /** The port on 127.0.0.1 clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** Closes every live connection and drops new ones until {@link #restore()}. */
    public void cut() {
        List<Socket> toClose;
        synchronized (gate) {
            cut = true;
            toClose = new ArrayList<>(live);
        }
        toClose.forEach(LoopbackProxy::closeQuietly);
    }

    /** Forwards new connections again. Connections closed by {@link #cut()} stay closed. */
    public void restore() {
        synchronized (gate) {
            cut = false;
        }
    }

    /** Holds every byte in flight, both ways, until {@link #unstall()}; connections stay open. */
    public void stall() {
        stalled = true;
    }

    /** Delivers what was held and forwards again. */
    public void unstall() {
        stalled = false;
        stallAfterNextRequest.set(false);
    }

    /**
     * Lets the next bytes a client sends (one read: a whole request, for a client that writes each request
     * at once, as Redis and ZooKeeper clients do) reach the target, and from that moment holds everything
     * else, both ways, as {@link #stall()} does: the target acts on that request, but its reply and every
     * later request wait until {@link #unstall()}, or are dropped by {@link #cut()}. A server that did the
     * work while its client heard nothing, and never hears what the client tried next.
     */
    public void stallAfterNextRequest() {
        stallAfterNextRequest.set(true);
    }

    /**
     * Forwards what the target sends (replies) only {@code delay} after the proxy read it; what clients send
     * goes through at once. A reply read while an earlier one is held waits behind it, so a burst of replies
     * is slowed more than one: meant for a slow reply to one request, for example so that a client has sent
     * everything it pipelines behind a request before that request's reply can reach it. Zero turns it off.
     */
    public void delayReplies(Duration delay) {
        replyDelayNanos = delay.toNanos();
    }

    /** Whether the proxy is cut. */
    public boolean isCut() {
        synchronized (gate) {
            return cut;
        }
    }

    /** Connections accepted so far (forwarded or dropped). */
    public int acceptedConnections() {
        return accepted.get();
    }

    /** Connections dropped on arrival because the proxy was cut. */
    public int droppedConnections() {
        return dropped.get();
    }

    /** Stops accepting and closes every connection. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        cut();
        try {
            acceptor.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "LoopbackProxy[127.0.0.1:" + port() + " -> " + targetHost + ":" + targetPort + (isCut() ? ", cut" : "") + "]";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue; // a failed accept of one connection; keep serving
            }
            accepted.incrementAndGet();
            if (isCut()) {
                dropped.incrementAndGet();
                closeQuietly(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(new InetSocketAddress(targetHost, targetPort), CONNECT_TIMEOUT_MS);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            boolean admitted;
            synchronized (gate) {
                admitted = !cut && !closed;
                if (admitted) {
                    live.add(client);
                    live.add(upstream);
                }
            }
            if (!admitted) {
                dropped.incrementAndGet();
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            startPump(client, upstream, true);
            startPump(upstream, client, false);
        }
    }

    private void startPump(Socket from, Socket to, boolean fromClient) {
        Thread t = new Thread(() -> pump(from, to, fromClient), label + "-" + (fromClient ? "up" : "down"));
        t.setDaemon(true);
        t.start();
    }

    private void pump(Socket from, Socket to, boolean fromClient) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                long readAt = System.nanoTime();
                if (fromClient && !stalled && stallAfterNextRequest.compareAndSet(true, false)) {
                    stalled = true; // before this request is forwarded, so its reply is held too
                    out.write(buffer, 0, n);
                    out.flush();
                    continue;
                }
                while (stalled && !closed && !from.isClosed()) {
                    Thread.sleep(5);
                }
                long delay = fromClient ? 0 : replyDelayNanos;
                while (delay > 0 && System.nanoTime() - readAt < delay && !closed && !from.isClosed()) {
                    Thread.sleep(1);
                }
                if (closed || from.isClosed()) {
                    break; // cut or closed while held: what was held is dropped, never delivered late
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (SocketException e) {
            // closed by cut(), close() or the peer
        } catch (IOException e) {
            // the same, reported differently
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            live.remove(from);
            live.remove(to);
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // nothing to do
        }
    }
}
