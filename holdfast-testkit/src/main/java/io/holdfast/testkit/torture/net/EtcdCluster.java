package io.holdfast.testkit.torture.net;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Three etcd members ({@code /usr/bin/etcd}, Debian's {@code etcd-server}), each in its own namespace,
 * with short elections (heartbeat 100 ms, election timeout 1 s) so leases of a couple of seconds survive
 * a leader change. A member killed and started again keeps its data directory, as after a crash.
 */
public final class EtcdCluster extends Cluster {
    /** Where Debian installs etcd. */
    public static final String ETCD = "/usr/bin/etcd";
    private static final Pattern LEADER = Pattern.compile("\"leader\":\"?(\\d+)");
    private static final Pattern MEMBER = Pattern.compile("\"member_id\":\"?(\\d+)");

    /** An etcd cluster in {@code network}; its data and logs under {@code dir}. Nothing runs before {@link #start()}. */
    public EtcdCluster(Network network, Path dir) {
        super(network, dir);
    }

    @Override
    public int clientPort() {
        return 2379;
    }

    @Override
    public String uri() {
        return "etcd://" + servers().stream().map(s -> s.address() + ":2379").collect(Collectors.joining(",")) + "/torture";
    }

    @Override
    public String describe() {
        return "etcd cluster of 3 members (" + servers().stream().map(Network.Member::toString).collect(Collectors.joining(", "))
                + "), each in its own network namespace";
    }

    @Override
    protected List<String> command(Network.Member s) {
        String peer = "http://" + s.address() + ":2380";
        String cluster = servers().stream().map(m -> m.name() + "=http://" + m.address() + ":2380").collect(Collectors.joining(","));
        return List.of(ETCD, "--name", s.name(), "--data-dir", dir.resolve(s.name() + ".data").toString(),
                "--listen-client-urls", "http://" + s.address() + ":2379,http://127.0.0.1:2379",
                "--advertise-client-urls", "http://" + s.address() + ":2379",
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", cluster, "--initial-cluster-state", "new", "--initial-cluster-token", "holdfast-torture",
                "--heartbeat-interval", "100", "--election-timeout", "1000", "--logger", "zap");
    }

    @Override
    protected boolean answers(Network.Member s) {
        return ask(s, 2379, "GET /health HTTP/1.0\r\n\r\n").contains("\"health\":\"true\"");
    }

    @Override
    protected boolean leads(Network.Member s) {
        String status = ask(s, 2379, "POST /v3/maintenance/status HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
        Matcher leader = LEADER.matcher(status);
        Matcher member = MEMBER.matcher(status);
        return leader.find() && member.find() && leader.group(1).equals(member.group(1)) && !leader.group(1).equals("0");
    }
}
