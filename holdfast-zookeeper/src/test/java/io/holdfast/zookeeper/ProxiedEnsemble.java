package io.holdfast.zookeeper;

import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.LoopbackProxy;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Three ZooKeeper servers in this JVM (tick {@value #TICK_MS} ms, syncLimit {@value #SYNC_LIMIT}) where
 * server 1 reaches servers 2 and 3 only through {@link LoopbackProxy}s (quorum and election ports), so
 * a test can cut server 1, and the clients connected to it, off from the rest while they keep talking
 * to each other. Servers 2 and 3 start first, so one of them leads and server 1 follows.
 */
final class ProxiedEnsemble implements AutoCloseable {
    static final int TICK_MS = 200;
    static final int SYNC_LIMIT = 20;

    private final Path root;
    private final int[] clientPorts = new int[4];
    private final int[] quorumPorts = new int[4];
    private final int[] electionPorts = new int[4];
    private final List<LoopbackProxy> fromServer1 = new ArrayList<>();
    private final Peer[] peers = new Peer[4];

    /** Exposes the peer so the test can ask its state and stop it. */
    private static final class Peer extends QuorumPeerMain {
        QuorumPeer peer() {
            return quorumPeer;
        }
    }

    ProxiedEnsemble() throws Exception {
        System.setProperty("zookeeper.admin.enableServer", "false");
        root = Files.createTempDirectory("holdfast-zk-proxied");
        for (int i = 1; i <= 3; i++) {
            clientPorts[i] = LoopbackPorts.unusedPort();
            quorumPorts[i] = LoopbackPorts.unusedPort();
            electionPorts[i] = LoopbackPorts.unusedPort();
        }
        int[] q1 = new int[4];
        int[] e1 = new int[4];
        for (int i = 2; i <= 3; i++) {
            LoopbackProxy q = new LoopbackProxy("127.0.0.1", quorumPorts[i]);
            LoopbackProxy e = new LoopbackProxy("127.0.0.1", electionPorts[i]);
            fromServer1.add(q);
            fromServer1.add(e);
            q1[i] = q.port();
            e1[i] = e.port();
        }
        start(3, quorumPorts, electionPorts);
        start(2, quorumPorts, electionPorts);
        awaitServing(2);
        awaitServing(3);
        q1[1] = quorumPorts[1];
        e1[1] = electionPorts[1];
        start(1, q1, e1);
        awaitServing(1);
    }

    private void start(int id, int[] quorum, int[] election) throws Exception {
        Path dir = Files.createDirectories(root.resolve("server" + id));
        Files.writeString(dir.resolve("myid"), Integer.toString(id));
        Properties p = new Properties();
        p.setProperty("tickTime", Integer.toString(TICK_MS));
        p.setProperty("initLimit", "50");
        p.setProperty("syncLimit", Integer.toString(SYNC_LIMIT));
        p.setProperty("dataDir", dir.toString());
        p.setProperty("clientPort", Integer.toString(clientPorts[id]));
        p.setProperty("clientPortAddress", "127.0.0.1");
        p.setProperty("maxClientCnxns", "0");
        p.setProperty("maxSessionTimeout", "60000");
        p.setProperty("4lw.commands.whitelist", "*");
        for (int i = 1; i <= 3; i++) {
            p.setProperty("server." + i, "127.0.0.1:" + quorum[i] + ":" + election[i]);
        }
        QuorumPeerConfig config = new QuorumPeerConfig();
        config.parseProperties(p);
        Peer peer = new Peer();
        peers[id] = peer;
        Thread t = new Thread(() -> {
            try {
                peer.runFromConfig(config);
            } catch (Exception e) {
                // stopped
            }
        }, "zk-proxied-server-" + id);
        t.setDaemon(true);
        t.start();
    }

    private void awaitServing(int id) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            QuorumPeer peer = peers[id].peer();
            if (peer != null && (peer.getPeerState() == QuorumPeer.ServerState.FOLLOWING
                    || peer.getPeerState() == QuorumPeer.ServerState.LEADING) && peer.getActiveServer() != null) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("server " + id + " did not join the ensemble within 60 s");
    }

    /** FOLLOWING, LEADING, LOOKING ... of server {@code id}. */
    String state(int id) {
        QuorumPeer peer = peers[id].peer();
        return peer == null ? "none" : peer.getPeerState().toString();
    }

    int clientPort(int id) {
        return clientPorts[id];
    }

    /** Holds every byte between server 1 and servers 2 and 3 (connections stay open, as in a partition). */
    void isolateServer1() {
        fromServer1.forEach(LoopbackProxy::stall);
    }

    @Override
    public void close() throws IOException {
        for (int i = 1; i <= 3; i++) {
            if (peers[i] != null) {
                peers[i].close();
            }
        }
        fromServer1.forEach(LoopbackProxy::close);
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
