package io.holdfast.testkit.torture.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A ZooKeeper ensemble of three servers, each a JVM of its own ({@code QuorumPeerMain} from the
 * ZooKeeper jar on this JVM's class path) in its own namespace. Tick {@value #TICK_MS} ms, so sessions
 * as short as the torture's leases are allowed; syncLimit {@value #SYNC_LIMIT}, so a follower cut off from
 * its leader keeps serving reads for {@code 20 × 200 ms = 4 s} (the window of review finding Z1).
 * A server killed and started again keeps its data directory.
 */
public final class ZooKeeperEnsemble extends Cluster {
    /** The servers' tick. */
    public static final int TICK_MS = 200;
    /** The servers' syncLimit, in ticks. */
    public static final int SYNC_LIMIT = 20;
    private static final String MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

    /** An ensemble in {@code network}; its data and logs under {@code dir}. Nothing runs before {@link #start()}. */
    public ZooKeeperEnsemble(Network network, Path dir) {
        super(network, dir);
    }

    /** Why the ensemble cannot run from this JVM's class path (no ZooKeeper server classes), or null. */
    public static String whyUnavailable() {
        try {
            Class.forName(MAIN, false, ZooKeeperEnsemble.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return "the ZooKeeper server classes (" + MAIN + ") are not on the class path";
        }
        try {
            Class.forName("com.codahale.metrics.Reservoir", false, ZooKeeperEnsemble.class.getClassLoader());
            return null;
        } catch (ClassNotFoundException e) {
            return "the ZooKeeper server needs Dropwizard Metrics (io.dropwizard.metrics:metrics-core), which is not on the class path";
        }
    }

    @Override
    public int clientPort() {
        return 2181;
    }

    @Override
    public String uri() {
        return "zookeeper://" + servers().stream().map(s -> s.address() + ":2181").collect(Collectors.joining(","))
                + "/torture?tickTime=" + TICK_MS + "ms";
    }

    @Override
    public String describe() {
        return "ZooKeeper ensemble of 3 servers (" + servers().stream().map(Network.Member::toString).collect(Collectors.joining(", "))
                + "), each a JVM in its own network namespace, tick " + TICK_MS + " ms, syncLimit " + SYNC_LIMIT;
    }

    @Override
    protected List<String> command(Network.Member s) throws IOException {
        int id = servers().indexOf(s) + 1;
        Path data = Files.createDirectories(dir.resolve(s.name() + ".data"));
        Files.writeString(data.resolve("myid"), Integer.toString(id), StandardCharsets.UTF_8);
        StringBuilder cfg = new StringBuilder()
                .append("tickTime=").append(TICK_MS).append('\n')
                .append("initLimit=50\nsyncLimit=").append(SYNC_LIMIT).append('\n')
                .append("dataDir=").append(data).append('\n')
                .append("clientPort=2181\nmaxClientCnxns=0\nmaxSessionTimeout=60000\n")
                .append("4lw.commands.whitelist=srvr,ruok\nadmin.enableServer=false\n");
        for (int i = 0; i < servers().size(); i++) {
            cfg.append("server.").append(i + 1).append('=').append(servers().get(i).address()).append(":2888:3888\n");
        }
        Path file = dir.resolve(s.name() + ".cfg");
        Files.writeString(file, cfg.toString(), StandardCharsets.UTF_8);
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx192m", "-XX:-UsePerfData",
                "-Dzookeeper.admin.enableServer=false", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), MAIN, file.toString());
    }

    @Override
    protected boolean answers(Network.Member s) {
        String srvr = ask(s, 2181, "srvr");
        return srvr.contains("Mode: leader") || srvr.contains("Mode: follower");
    }

    @Override
    protected boolean leads(Network.Member s) {
        return ask(s, 2181, "srvr").contains("Mode: leader");
    }
}
