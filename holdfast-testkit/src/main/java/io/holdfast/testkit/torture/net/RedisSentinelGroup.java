package io.holdfast.testkit.torture.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A Redis master ({@code s1}) with one replica ({@code s2}), watched by three Sentinels ({@code sen1} to
 * {@code sen3}, {@code redis-server --sentinel}, quorum 2), each in its own namespace. No persistence: a
 * data node killed and started again comes back empty, as a master, until the Sentinels make it a replica
 * of whichever node they promoted. Sentinels declare a master down after {@value #DOWN_AFTER_MS} ms.
 * The leader is the data node the Sentinels name as master.
 */
public final class RedisSentinelGroup extends Cluster {
    /** The name the Sentinels monitor the master under. */
    public static final String MASTER_NAME = "holdfast";
    /** Sentinel's {@code down-after-milliseconds}. */
    public static final int DOWN_AFTER_MS = 1000;
    private static final int SENTINEL_PORT = 26379;
    private final Set<String> startedOnce = new HashSet<>();

    /** A Sentinel group in {@code network}; its files and logs under {@code dir}. Nothing runs before {@link #start()}. */
    public RedisSentinelGroup(Network network, Path dir) {
        super(network, dir);
    }

    /** Why it cannot run here, or null. */
    public static String whyUnavailable() {
        return RedisServers.whyUnavailable();
    }

    @Override
    protected List<String> serverNames() {
        return List.of("s1", "s2", "sen1", "sen2", "sen3");
    }

    private boolean isSentinel(Network.Member s) {
        return s.name().startsWith("sen");
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
        return "master";
    }

    @Override
    public String uri() {
        return "redis-sentinel://" + servers().stream().filter(this::isSentinel).map(s -> s.address() + ":" + SENTINEL_PORT)
                .collect(Collectors.joining(",")) + "?sentinelMasterId=" + MASTER_NAME + "&prefix=torture:&timeout=1s";
    }

    @Override
    public String describe() {
        return "Redis " + "master s1 + replica s2 + 3 Sentinels (quorum 2, down-after " + DOWN_AFTER_MS + " ms), no persistence ("
                + servers().stream().map(Network.Member::toString).collect(Collectors.joining(", ")) + "), each in its own network namespace";
    }

    @Override
    protected synchronized List<String> command(Network.Member s) throws IOException {
        Network.Member master = servers().get(0);
        if (!isSentinel(s)) {
            // The replica follows s1 at its first start only; a restarted node comes up as an empty master and the
            // Sentinels reconfigure it.
            boolean first = startedOnce.add(s.name());
            return RedisServers.dataNode(s, dir, first && !s.equals(master) ? master : null);
        }
        Path conf = dir.resolve(s.name() + ".conf");
        Files.writeString(conf, "port " + SENTINEL_PORT + "\nbind " + s.address() + " 127.0.0.1\nprotected-mode no\ndaemonize no\n"
                + "dir " + dir + "\n"
                + "sentinel monitor " + MASTER_NAME + " " + master.address() + " " + RedisServers.PORT + " 2\n"
                + "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MS + "\n"
                + "sentinel failover-timeout " + MASTER_NAME + " 4000\n"
                + "sentinel parallel-syncs " + MASTER_NAME + " 1\n", StandardCharsets.UTF_8);
        return List.of(RedisServers.REDIS_SERVER, conf.toString(), "--sentinel");
    }

    @Override
    protected boolean answers(Network.Member s) {
        if (isSentinel(s)) {
            return ask(s, SENTINEL_PORT, RedisServers.request("PING")).contains("+PONG");
        }
        String info = ask(s, RedisServers.PORT, RedisServers.request("INFO replication"));
        return info.contains("role:master") || info.contains("master_link_status:up");
    }

    /**
     * Whether the Sentinels name {@code s} as the master (the first Sentinel that answers decides). A node
     * cut off during a failover still says {@code role:master} for a while after the partition heals (Sentinel
     * waits about 8 s before it makes an old master a replica), so the node's own word is not enough.
     */
    @Override
    protected boolean leads(Network.Member s) {
        if (isSentinel(s)) {
            return false;
        }
        for (Network.Member sentinel : servers()) {
            if (isSentinel(sentinel) && isAlive(sentinel)) {
                String reply = ask(sentinel, SENTINEL_PORT, RedisServers.request("SENTINEL get-master-addr-by-name " + MASTER_NAME));
                if (reply.contains("\n10.77.")) {
                    return reply.contains("\n" + s.address() + "\r\n");
                }
            }
        }
        return false;
    }
}
