package io.holdfast.testkit.torture;

import io.holdfast.testkit.torture.net.Cluster;
import io.holdfast.testkit.torture.net.EtcdCluster;
import io.holdfast.testkit.torture.net.Network;
import io.holdfast.testkit.torture.net.ZooKeeperEnsemble;

import java.nio.file.Path;
import java.util.Locale;

/**
 * Clusters the torture runner builds itself, each server and each client process in its own network
 * namespace on a private bridge ({@link Network}), so that faults can partition any group from any other.
 * Needs root, iproute2 and nftables.
 */
public enum Topology {
    /** Three etcd members ({@code /usr/bin/etcd}). */
    ETCD3,
    /** A ZooKeeper ensemble of three servers, each its own JVM. */
    ZK3;

    /** The name as written on the command line: {@code etcd3}, {@code zk3}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Reads {@code etcd3} or {@code zk3}.
     *
     * @throws IllegalArgumentException naming the allowed words, for anything else
     */
    public static Topology parse(String text) {
        for (Topology t : values()) {
            if (t.label().equalsIgnoreCase(text.trim())) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown topology '" + text + "'; allowed: etcd3, zk3");
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
        };
    }

    Cluster cluster(Network network, Path dir) {
        return switch (this) {
            case ETCD3 -> new EtcdCluster(network, dir);
            case ZK3 -> new ZooKeeperEnsemble(network, dir);
        };
    }
}
