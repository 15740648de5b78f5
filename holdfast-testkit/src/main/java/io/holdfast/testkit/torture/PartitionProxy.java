package io.holdfast.testkit.torture;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on 127.0.0.1 between one client and one store address, with the network faults a partition
 * fault needs. {@link io.holdfast.testkit.LoopbackProxy} can only reset connections; this one can also
 * black-hole and delay them:
 * <ul>
 *   <li>{@link Mode#DROP}: nothing is forwarded in either direction, but connections stay open (new ones are
 *       accepted and then hang), as when packets are dropped on the way; after {@link #heal()} the bytes
 *       held back are delivered, as TCP's retransmissions would deliver them;</li>
 *   <li>{@link Mode#RESET}: live connections are closed and new ones closed on arrival;</li>
 *   <li>{@link Mode#DELAY}: every chunk is held for the delay before it is passed on, in both directions.</li>
 * </ul>
 * Thread-safe. Two threads per connection; meant for tests.
 */
final class PartitionProxy implements AutoCloseable {
    /** What the proxy does to traffic. */
    enum Mode { FORWARD, DROP, RESET, DELAY }

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket server;
    private final Set<Socket> live = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private final Thread acceptor;
    // Guarded by gate.
    private Mode mode = Mode.FORWARD;
    private long delayNanos;
    private volatile boolean closed;

    PartitionProxy(String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        try {
            this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("could not bind a loopback port for a proxy to " + targetHost + ":" + targetPort, e);
        }
        this.acceptor = new Thread(this::acceptLoop, "torture-proxy-" + server.getLocalPort() + "-accept");
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    /** The port on 127.0.0.1 the client connects to. */
    int port() {
        return server.getLocalPort();
    }

    /** The address behind the proxy. */
    String target() {
        return targetHost + ":" + targetPort;
    }

    /** Black-holes the traffic until {@link #heal()}. */
    void drop() {
        setMode(Mode.DROP, 0);
    }

    /** Closes live connections and refuses new ones until {@link #heal()}. */
    void reset() {
        List<Socket> toClose;
        synchronized (gate) {
            mode = Mode.RESET;
            gate.notifyAll();
            toClose = new ArrayList<>(live);
        }
        toClose.forEach(PartitionProxy::closeQuietly);
    }

    /** Holds every chunk back for {@code delay} until {@link #heal()}. */
    void delay(Duration delay) {
        setMode(Mode.DELAY, delay.toNanos());
    }

    /** Forwards normally again (what was held back in {@link Mode#DROP} flows on). */
    void heal() {
        setMode(Mode.FORWARD, 0);
    }

    Mode mode() {
        synchronized (gate) {
            return mode;
        }
    }

    private void setMode(Mode m, long delay) {
        synchronized (gate) {
            mode = m;
            delayNanos = delay;
            gate.notifyAll();
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        synchronized (gate) {
            gate.notifyAll();
        }
        live.forEach(PartitionProxy::closeQuietly);
        try {
            acceptor.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
                continue;
            }
            if (mode() == Mode.RESET) {
                closeQuietly(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(new InetSocketAddress(targetHost, targetPort), 5_000);
            } catch (IOException e) {
                closeQuietly(client); // the store is down: the client sees its connection closed
                closeQuietly(upstream);
                continue;
            }
            live.add(client);
            live.add(upstream);
            start(client, upstream, "up");
            start(upstream, client, "down");
        }
    }

    private void start(Socket from, Socket to, String direction) {
        Thread t = new Thread(() -> pump(from, to), "torture-proxy-" + port() + "-" + direction);
        t.setDaemon(true);
        t.start();
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                long readAt = System.nanoTime();
                if (!passGate(readAt)) {
                    return;
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // closed by reset(), close() or the peer
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            live.remove(from);
            live.remove(to);
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** Waits until a chunk read at {@code readAt} may pass; false if the connection must close instead. */
    private boolean passGate(long readAt) throws InterruptedException {
        synchronized (gate) {
            while (true) {
                if (closed || mode == Mode.RESET) {
                    return false;
                }
                if (mode == Mode.FORWARD) {
                    return true;
                }
                if (mode == Mode.DROP) {
                    gate.wait();
                    continue;
                }
                long left = readAt + delayNanos - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                gate.wait(Math.max(1, left / 1_000_000), 0);
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // nothing to do
        }
    }

    @Override
    public String toString() {
        return "PartitionProxy[127.0.0.1:" + port() + " -> " + target() + ", " + mode() + "]";
    }
}
