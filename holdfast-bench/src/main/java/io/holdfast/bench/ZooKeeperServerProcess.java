package io.holdfast.bench;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A throwaway ZooKeeper server (or ensemble of servers) for the benchmark, in its own JVM so that it
 * does not share a heap, a JIT or a garbage collector with the clients being measured. Real ZooKeeper
 * servers, started through curator-test, with ZooKeeper's default tick (2 s, so sessions of 4 to 40 s)
 * on random loopback ports and in temporary directories.
 *
 * <p>Usage: {@code ZooKeeperServerProcess SERVERS}. Prints {@code CONNECT host:port,...} once serving,
 * and stops (deleting its data) when its standard input closes.
 */
public final class ZooKeeperServerProcess {
    /** Start of the line that gives the connect string. */
    public static final String CONNECT = "CONNECT ";
    static final int TICK_MS = 2_000;

    private ZooKeeperServerProcess() {
    }

    public static void main(String[] args) throws Exception {
        int servers = args.length == 0 ? 1 : Integer.parseInt(args[0]);
        List<InstanceSpec> specs = new ArrayList<>();
        for (int i = 1; i <= servers; i++) {
            // maxClientCnxns 0: no limit on connections from one address (every client is on 127.0.0.1).
            specs.add(new InstanceSpec(null, -1, -1, -1, true, servers == 1 ? -1 : i, TICK_MS, 0, Map.of(), "127.0.0.1"));
        }
        Closeable running;
        String connect;
        if (servers == 1) {
            TestingServer server = new TestingServer(specs.get(0), true);
            running = server;
            connect = server.getConnectString();
        } else {
            TestingCluster cluster = new TestingCluster(specs);
            cluster.start();
            running = cluster;
            connect = cluster.getConnectString();
        }
        System.out.println(CONNECT + connect);
        System.out.flush();
        while (System.in.read() >= 0) {
            // the parent writes nothing: wait for it to go away
        }
        running.close();
        System.exit(0);
    }
}
