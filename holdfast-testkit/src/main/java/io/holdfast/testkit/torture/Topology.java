package io.holdfast.testkit.torture;

import io.holdfast.testkit.torture.net.Cluster;
import io.holdfast.testkit.torture.net.EtcdCluster;
import io.holdfast.testkit.torture.net.Network;
import io.holdfast.testkit.torture.net.PostgresReplicas;
import io.holdfast.testkit.torture.net.RedisClusterNodes;
import io.holdfast.testkit.torture.net.RedisSentinelGroup;
import io.holdfast.testkit.torture.net.RedlockMasters;
import io.holdfast.testkit.torture.net.ZooKeeperEnsemble;

import java.nio.file.Path;

/**
 * Clusters the torture runner builds itself, each server and each client process in its own network
 * namespace on a private bridge ({@link Network}), so that faults can partition any group from any other.
 * Needs root, iproute2 and nftables.
 */
public enum Topology {
    /** Three etcd members ({@code /usr/bin/etcd}). */
    ETCD3("etcd3"),
    /** A ZooKeeper ensemble of three servers, each its own JVM. */
    ZK3("zk3"),
    /** A Redis master, one replica and three Sentinels ({@code redis-sentinel://}). */
    REDIS_SENTINEL("sentinel"),
    /** Redlock over five independent Redis masters ({@code redlock://}). */
    REDLOCK5("redlock5"),
    /** A Redis Cluster of three masters and three replicas ({@code redis-cluster://}). */
    REDIS_CLUSTER("rediscluster"),
    /** A PostgreSQL primary and an asynchronous streaming replica, promoted by the harness ({@code jdbc:postgresql://a,b/...?targetServerType=primary}). */
    PG2("pg2"),
    /** As {@link #PG2}, with synchronous replication ({@code synchronous_standby_names = '*'}). */
    PG2_SYNC("pg2sync");

    private final String label;

    Topology(String label) {
        this.label = label;
    }

    /** The name as written on the command line: {@code etcd3}, {@code zk3}, {@code sentinel}, {@code redlock5}, {@code rediscluster}, {@code pg2}, {@code pg2sync}. */
    public String label() {
        return label;
    }

    /**
     * Reads {@code etcd3}, {@code zk3}, {@code sentinel}, {@code redlock5}, {@code rediscluster}, {@code pg2} or {@code pg2sync}.
     *
     * @throws IllegalArgumentException naming the allowed words, for anything else
     */
    public static Topology parse(String text) {
        for (Topology t : values()) {
            if (t.label().equalsIgnoreCase(text.trim())) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown topology '" + text + "'; allowed: "
                + java.util.Arrays.stream(values()).map(Topology::label).collect(java.util.stream.Collectors.joining(", ")));
    }

    /**
     * The faults a run injects unless told otherwise: on etcd and ZooKeeper {@link Fault#CLUSTER}; on
     * Sentinel and Redis Cluster those without a follower to aim at; on Redlock the minority partition, one master killed or
     * paused, and the client faults; on the three Redis topologies also the leader's clock stepped ahead; on
     * PostgreSQL the client faults, the primary cut off, and the primary killed (the standby promoted).
     */
    public java.util.Set<Fault> defaultFaults() {
        return switch (this) {
            case ETCD3, ZK3 -> Fault.CLUSTER;
            case REDIS_SENTINEL, REDIS_CLUSTER -> java.util.Collections.unmodifiableSet(java.util.EnumSet.of(Fault.KILL, Fault.PAUSE, Fault.PARTITION,
                    Fault.ONE_WAY_PARTITION, Fault.LEADER_PARTITION, Fault.LEADER_KILL, Fault.LEADER_PAUSE, Fault.SLOW_LINK, Fault.LEADER_CLOCK_STEP));
            case REDLOCK5 -> java.util.Collections.unmodifiableSet(java.util.EnumSet.of(Fault.KILL, Fault.PAUSE, Fault.PARTITION,
                    Fault.ONE_WAY_PARTITION, Fault.MINORITY_PARTITION, Fault.LEADER_KILL, Fault.LEADER_PAUSE, Fault.SLOW_LINK, Fault.LEADER_CLOCK_STEP));
            case PG2, PG2_SYNC -> java.util.Collections.unmodifiableSet(java.util.EnumSet.of(Fault.KILL, Fault.PAUSE, Fault.PARTITION,
                    Fault.LEADER_PARTITION, Fault.LEADER_KILL));
        };
    }

    /** Why this machine cannot build the topology, or null if it can. */
    public String whyUnavailable() {
        String why = Network.whyUnavailable();
        if (why != null) {
            return why;
        }
        return switch (this) {
            case ETCD3 -> java.nio.file.Files.isExecutable(Path.of(EtcdCluster.ETCD)) ? null
                    : EtcdCluster.ETCD + " is missing: install etcd-server (scripts/services does)";
            case ZK3 -> ZooKeeperEnsemble.whyUnavailable();
            case REDIS_SENTINEL -> RedisSentinelGroup.whyUnavailable();
            case REDLOCK5 -> RedlockMasters.whyUnavailable();
            case REDIS_CLUSTER -> RedisClusterNodes.whyUnavailable();
            case PG2, PG2_SYNC -> PostgresReplicas.whyUnavailable();
        };
    }

    Cluster cluster(Network network, Path dir) {
        return switch (this) {
            case ETCD3 -> new EtcdCluster(network, dir);
            case ZK3 -> new ZooKeeperEnsemble(network, dir);
            case REDIS_SENTINEL -> new RedisSentinelGroup(network, dir);
            case REDLOCK5 -> new RedlockMasters(network, dir);
            case REDIS_CLUSTER -> new RedisClusterNodes(network, dir);
            case PG2 -> new PostgresReplicas(network, dir, false);
            case PG2_SYNC -> new PostgresReplicas(network, dir, true);
        };
    }
}
