package io.holdfast.redis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Three {@code redis-server} masters joined into a Redis Cluster by {@code redis-cli --cluster create}. */
final class RedisClusterServers implements AutoCloseable {
    final List<RedisServer> masters = new ArrayList<>();

    RedisClusterServers(int size) {
        this(size, true);
    }

    /**
     * @param fullCoverage Redis's {@code cluster-require-full-coverage}: with {@code false}, the masters that
     *        are up keep serving their slots while another master is down
     */
    RedisClusterServers(int size, boolean fullCoverage) {
        try {
            for (int i = 0; i < size; i++) {
                masters.add(RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", "2000", "--cluster-require-full-coverage", fullCoverage ? "yes" : "no"));
            }
            List<String> args = new ArrayList<>(List.of("--cluster", "create"));
            masters.forEach(m -> args.add(m.address()));
            args.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
            RedisServer.cli(args.toArray(String[]::new));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!allOk()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cluster not ok after 60s: " + masters.get(0).command("CLUSTER", "INFO"));
                }
                RedisServer.sleep(100);
            }
        } catch (RuntimeException | IOException e) {
            close();
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }

    private boolean allOk() throws IOException {
        for (RedisServer m : masters) {
            if (!m.command("CLUSTER", "INFO").contains("cluster_state:ok")) {
                return false;
            }
        }
        return true;
    }

    /** Seeds for a {@code redis-cluster://} URI: every master's host:port, comma-separated. */
    String seeds() {
        return masters.stream().map(RedisServer::address).collect(Collectors.joining(","));
    }

    @Override
    public void close() {
        masters.forEach(RedisServer::close);
    }
}
