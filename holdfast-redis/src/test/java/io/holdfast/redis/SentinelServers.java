package io.holdfast.redis;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A master, one replica of it, and one Sentinel watching them (quorum 1, master down after 1 s), each a
 * {@code redis-server} process on a free loopback port.
 */
final class SentinelServers implements AutoCloseable {
    static final String MASTER_NAME = "holdfast";
    final RedisServer master;
    final RedisServer replica;
    final RedisServer sentinel;

    SentinelServers() {
        RedisServer m = null;
        RedisServer r = null;
        RedisServer s = null;
        try {
            m = RedisServer.start();
            r = RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(m.port));
            s = RedisServer.start(true);
            expectOk(s.command("SENTINEL", "MONITOR", MASTER_NAME, "127.0.0.1", Integer.toString(m.port), "1"));
            expectOk(s.command("SENTINEL", "SET", MASTER_NAME, "down-after-milliseconds", "1000"));
            expectOk(s.command("SENTINEL", "SET", MASTER_NAME, "failover-timeout", "5000"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!replicaKnown(s) || !"up".equals(r.infoField("replication", "master_link_status"))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the Sentinel did not see the replica within 60s: " + s.call("SENTINEL", "REPLICAS", MASTER_NAME));
                }
                RedisServer.sleep(100);
            }
        } catch (RuntimeException | IOException e) {
            for (RedisServer x : new RedisServer[] {s, r, m}) {
                if (x != null) {
                    x.close();
                }
            }
            throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
        }
        master = m;
        replica = r;
        sentinel = s;
    }

    private static boolean replicaKnown(RedisServer s) throws IOException {
        Object replicas = s.call("SENTINEL", "REPLICAS", MASTER_NAME);
        return replicas instanceof List<?> l && !l.isEmpty();
    }

    private static void expectOk(String reply) {
        if (!"OK".equals(reply)) {
            throw new IllegalStateException("Sentinel said " + reply);
        }
    }

    /** The port of the current master as the Sentinel reports it. */
    int masterPort() throws IOException {
        Object addr = sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
        return Integer.parseInt((String) ((List<?>) addr).get(1));
    }

    /** A {@code redis-sentinel://} URI for this set-up. */
    String uri(String params) {
        return "redis-sentinel://127.0.0.1:" + sentinel.port + "/?sentinelMasterId=" + MASTER_NAME + (params.isEmpty() ? "" : "&" + params);
    }

    @Override
    public void close() {
        sentinel.close();
        replica.close();
        master.close();
    }
}
