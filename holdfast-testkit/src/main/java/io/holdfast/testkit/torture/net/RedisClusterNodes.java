package io.holdfast.testkit.torture.net;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A Redis Cluster of three masters and three replicas ({@code s1} to {@code s6}, made by
 * {@code redis-cli --cluster create ... --cluster-replicas 1}), each node in its own namespace, node timeout
 * {@value #NODE_TIMEOUT_MS} ms, no persistence (a node killed and started again keeps its {@code nodes.conf}
 * but no data; a {@code nodes.conf} of an earlier run is deleted). The leader is the master that serves the torture's lock: the one master that has keys (every
 * key of a lock shares its slot), or before any key exists the first master.
 */
public final class RedisClusterNodes extends Cluster {
    /** {@code cluster-node-timeout}. */
    public static final int NODE_TIMEOUT_MS = 1000;
    private final java.util.Set<String> startedOnce = new java.util.HashSet<>();
    private static final Pattern KEYS = Pattern.compile(":(\\d+)\\r?\\n");

    /** Six nodes in {@code network}; their files and logs under {@code dir}. Nothing runs before {@link #start()}. */
    public RedisClusterNodes(Network network, Path dir) {
        super(network, dir);
    }

    /** Why it cannot run here, or null. */
    public static String whyUnavailable() {
        return RedisServers.whyUnavailable();
    }

    @Override
    protected List<String> serverNames() {
        return IntStream.rangeClosed(1, 6).mapToObj(i -> "s" + i).toList();
    }

    @Override
    public int clientPort() {
        return RedisServers.PORT;
    }

    @Override
    public String restartedAs() {
        return RedisServers.RESTARTED_AS;
    }

    @Override
    protected boolean stepsClocks() {
        return true;
    }

    @Override
    public String leaderRole() {
        return "master of the lock's slot";
    }

    @Override
    public String uri() {
        return "redis-cluster://" + servers().stream().map(s -> s.address() + ":" + RedisServers.PORT).collect(Collectors.joining(","))
                + "?prefix=torture:&timeout=1s";
    }

    @Override
    public String describe() {
        return "Redis Cluster of 3 masters and 3 replicas, node timeout " + NODE_TIMEOUT_MS + " ms, no persistence ("
                + servers().stream().map(Network.Member::toString).collect(Collectors.joining(", ")) + "), each in its own network namespace";
    }

    @Override
    protected synchronized List<String> command(Network.Member s) throws java.io.IOException {
        if (startedOnce.add(s.name())) { // a nodes.conf left by an earlier run would make the node refuse to join
            java.nio.file.Files.deleteIfExists(dir.resolve(s.name() + ".nodes.conf"));
        }
        List<String> cmd = new ArrayList<>(RedisServers.dataNode(s, dir, null));
        cmd.addAll(List.of("--cluster-enabled", "yes", "--cluster-config-file", dir.resolve(s.name() + ".nodes.conf").toString(),
                "--cluster-node-timeout", Integer.toString(NODE_TIMEOUT_MS), "--cluster-require-full-coverage", "no"));
        return cmd;
    }

    @Override
    protected void afterStart() throws Exception {
        List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        servers().forEach(s -> create.add(s.address() + ":" + RedisServers.PORT));
        create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        network.exec(servers().get(0), create.toArray(String[]::new));
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!servers().stream().allMatch(s -> info(s, "CLUSTER INFO").contains("cluster_state:ok"))) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the Redis Cluster did not reach cluster_state:ok within 60 s");
            }
            Thread.sleep(200);
        }
    }

    private String info(Network.Member s, String command) {
        return ask(s, RedisServers.PORT, RedisServers.request(command));
    }

    @Override
    protected boolean answers(Network.Member s) {
        return info(s, "PING").contains("+PONG");
    }

    private boolean isMaster(Network.Member s) {
        return isAlive(s) && info(s, "ROLE").contains("master");
    }

    private long keys(Network.Member s) {
        Matcher m = KEYS.matcher(info(s, "DBSIZE"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    @Override
    protected boolean leads(Network.Member s) {
        if (!isMaster(s)) {
            return false;
        }
        if (keys(s) > 0) {
            return true;
        }
        for (Network.Member other : servers()) {
            if (!other.equals(s) && isMaster(other) && keys(other) > 0) {
                return false;
            }
        }
        return servers().stream().filter(this::isMaster).findFirst().map(s::equals).orElse(false);
    }
}
