package io.holdfast.testkit.torture.net;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The {@code redis-server} command lines and probes the Redis topologies share. */
final class RedisServers {
    /** Where Debian installs Redis. */
    static final String REDIS_SERVER = "/usr/bin/redis-server";
    /** The data port of every Redis server in a topology. */
    static final int PORT = 6379;
    /** How a data node killed and started again comes back. */
    static final String RESTARTED_AS = "empty (no persistence)";

    private RedisServers() {
    }

    /** Why Redis topologies cannot run here ({@code redis-server} missing), or null. */
    static String whyUnavailable() {
        return Files.isExecutable(Path.of(REDIS_SERVER)) ? null : REDIS_SERVER + " is missing: install redis-server (scripts/services does)";
    }

    /**
     * A data node without persistence (no RDB, no AOF: a restart forgets everything), listening on its
     * address and its own loopback; a replica of {@code master} if that is not null. The RDB file a replica
     * wrote while syncing is deleted first, so that the node starts empty.
     */
    static List<String> dataNode(Network.Member s, Path dir, Network.Member master) throws IOException {
        Files.deleteIfExists(dir.resolve(s.name() + ".rdb"));
        List<String> cmd = new ArrayList<>(List.of(REDIS_SERVER, "--port", Integer.toString(PORT), "--bind", s.address(), "127.0.0.1",
                "--protected-mode", "no", "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--dir", dir.toString(), "--dbfilename", s.name() + ".rdb"));
        if (master != null) {
            cmd.addAll(List.of("--replicaof", master.address(), Integer.toString(PORT)));
        }
        return cmd;
    }

    /** The inline command {@code command} followed by {@code QUIT}, so that the server closes the connection after answering. */
    static String request(String command) {
        return command + "\r\nQUIT\r\n";
    }
}
