package io.holdfast.testkit.torture;

import io.holdfast.Durations;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import io.holdfast.testkit.torture.net.Cluster;
import io.holdfast.testkit.torture.net.Network;
import io.holdfast.testkit.torture.net.Partition;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The cluster side of a topology run: the network, the servers in it, a namespace per client number
 * ({@code cN} at {@code 10.77.0.(100+N)}, kept across the client's incarnations), and the faults that need
 * them. Every fault ends healed (partitions removed, paused servers continued, killed servers started).
 */
final class ClusterRun implements AutoCloseable {
    private final TortureRunner runner;
    private final TortureSettings settings;
    private final Consumer<String> progress;
    private final Network network;
    private final Cluster cluster;
    private final List<Network.Member> clientMembers = new ArrayList<>();
    private int oneWayPartitions;

    private ClusterRun(TortureRunner runner, TortureSettings settings, Consumer<String> progress, Network network, Cluster cluster) {
        this.runner = runner;
        this.settings = settings;
        this.progress = progress;
        this.network = network;
        this.cluster = cluster;
    }

    /** Builds the network, starts the servers and adds the clients' namespaces; on failure tears down what it built. */
    static ClusterRun start(TortureRunner runner, TortureSettings settings, Path dir, Consumer<String> progress) throws Exception {
        Topology t = settings.topology();
        String why = t.whyUnavailable();
        if (why != null) {
            throw new IllegalStateException("cannot build the " + t.label() + " topology: " + why);
        }
        Network network = Network.create();
        ClusterRun run = null;
        try {
            Cluster cluster = t.cluster(network, dir.resolve("servers"));
            run = new ClusterRun(runner, settings, progress, network, cluster);
            progress.accept("torture: starting " + t.label() + " in network namespaces");
            cluster.start();
            for (int c = 1; c <= settings.clients(); c++) {
                run.clientMembers.add(network.add("c" + c, 100 + c));
            }
            Network.Member leader = cluster.awaitLeader(Duration.ofSeconds(60));
            if (leader == null) {
                throw new IllegalStateException(t.label() + " elected no leader within 60 s");
            }
            progress.accept("torture: " + cluster.describe() + "; leader " + leader);
            return run;
        } catch (Exception | Error e) {
            if (run != null) {
                run.close();
            } else {
                network.close();
            }
            throw e;
        }
    }

    String uri() {
        return cluster.uri();
    }

    String describe() {
        return cluster.describe();
    }

    /** {@code command} run in client {@code client}'s namespace. */
    List<String> clientCommand(int client, List<String> command) {
        return network.inside(clientMembers.get(client - 1), command);
    }

    /** Cuts client {@code target} off from every server. */
    FaultWindow partitionClient(ClientProcess target, long token, String role) throws Exception {
        return partitioned(Fault.PARTITION, "client " + target.client, token, runner.pauseLength(),
                List.of(clientMembers.get(target.client - 1)), cluster.servers(), role + " cut off from every server");
    }

    /** Cuts the leader off from every other server and every client. */
    FaultWindow leaderPartition() throws Exception {
        Network.Member leader = leader();
        List<Network.Member> rest = new ArrayList<>(network.members());
        rest.remove(leader);
        return partitioned(Fault.LEADER_PARTITION, "server " + leader.name() + " (" + cluster.leaderRole() + ")", runner.holderToken(), runner.pauseLength(),
                List.of(leader), rest, "the leader cut off from the other servers and every client");
    }

    /**
     * Review finding Z1's partition: a holder that talks to a follower is asked to linger in its critical
     * section, then it and that follower are cut off from the leader, the other follower and the other
     * clients for 3 leases plus 2 s, longer than a follower keeps serving without its leader.
     */
    FaultWindow followerPartition() throws Exception {
        Network.Member leader = leader();
        Duration length = settings.lease().multipliedBy(3).plusSeconds(2);
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        java.util.Map<Integer, Network.Member> followers = new java.util.HashMap<>();
        long mappedAt = 0;
        while (System.nanoTime() - deadline < 0) {
            if (System.nanoTime() - mappedAt > 1_000_000_000L) { // which follower each client talks to, once a second
                followers.clear();
                for (ClientProcess p : runner.liveClients()) {
                    Network.Member f = followerOf(p, leader);
                    if (f != null) {
                        followers.put(p.client, f);
                    }
                }
                mappedAt = System.nanoTime();
            }
            for (ClientProcess p : runner.liveClients()) {
                Network.Member follower = followers.get(p.client);
                if (follower == null || !p.inPauseOfAtLeast(10)) {
                    continue;
                }
                long token = p.linger(length.plus(settings.lease()).toMillis(), Duration.ofMillis(500));
                if (token == 0) {
                    continue;
                }
                return partitioned(Fault.FOLLOWER_PARTITION, "client " + p.client, token, length,
                        List.of(clientMembers.get(p.client - 1), follower), others(clientMembers.get(p.client - 1), follower),
                        "the holder (lingering in its critical section, checking its hold) and its follower " + follower.name()
                                + " cut off from the leader " + leader.name() + ", the other follower and the other clients");
            }
            Thread.sleep(1);
        }
        throw new IllegalStateException("no holder connected to a follower was found in 15 s");
    }

    /**
     * Cuts the holder (waiting up to 3 s for one; else any live client) off from a minority of the servers,
     * the last ones ({@code s4,s5} of five), while the other clients still reach every server.
     */
    FaultWindow minorityPartition() throws Exception {
        ClientProcess target = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (target == null && System.nanoTime() - deadline < 0) {
            target = runner.liveClients().stream().filter(p -> p.holding() != 0).findFirst().orElse(null);
            Thread.sleep(1);
        }
        if (target == null) {
            List<ClientProcess> live = runner.liveClients();
            if (live.isEmpty()) {
                throw new IllegalStateException("no live client to cut off from a minority of the servers");
            }
            target = live.get(0);
        }
        long token = target.holding();
        List<Network.Member> servers = cluster.servers();
        List<Network.Member> minority = servers.subList(servers.size() - (servers.size() - 1) / 2, servers.size());
        return partitioned(Fault.MINORITY_PARTITION, "client " + target.client, token, runner.pauseLength(),
                List.of(clientMembers.get(target.client - 1)), minority,
                (token != 0 ? "the holder" : "a client") + " cut off from a minority of the servers (" + minority.size() + " of " + servers.size() + ")");
    }

    /**
     * Cuts the holder off from every server one way only, turn by turn (an odd seed begins with mute) deaf (the servers' packets to it are
     * dropped: its renewals reach the store and are applied, the answers never come back) and mute (its
     * packets to the servers are dropped: the store hears nothing from it, it still hears the store). The
     * holder is asked to linger in its critical section first, checking its hold every 100 ms, so that a
     * hold still saying valid after the store freed the lock is in the history (waiting up to 10 s for a
     * holder between its read and its write, as a cluster that has just been through a partition may grant
     * nothing for seconds; else the holder as it is, else any live client).
     */
    FaultWindow oneWayPartition() throws Exception {
        boolean deaf = Math.floorMod(settings.seed() + oneWayPartitions++, 2) == 0; // in turn, the seed says which comes first
        Duration length = runner.pauseLength();
        Holder h = lingeringHolder(length, "cut off one way");
        Network.Member client = clientMembers.get(h.process().client - 1);
        String what = deaf ? h.who() + " deaf to every server (their packets to it dropped; what it sends still arrives)"
                : h.who() + " mute to every server (its packets to them dropped; it still hears them)";
        long start = Event.now();
        Partition p;
        try {
            p = deaf ? network.cutOneWay(cluster.servers(), List.of(client)) : network.cutOneWay(List.of(client), cluster.servers());
            runner.sleepFor(length);
        } finally {
            network.heal();
        }
        return new FaultWindow(Fault.ONE_WAY_PARTITION, start, Event.now(), "client " + h.process().client, h.token(),
                what + " for " + Durations.format(length) + ", then healed", null, p.sides());
    }

    /**
     * Steps the leader's wall clock two leases ahead while the holder lingers (found as for the one-way
     * partition), for 1.5 leases plus half a second, then sets it honest again.
     */
    FaultWindow leaderClockStep() throws Exception {
        Duration length = runner.pauseLength();
        Duration step = settings.lease().multipliedBy(2);
        Network.Member leader = leader();
        Holder h = lingeringHolder(length, "whose server's clock is stepped");
        long start = Event.now();
        try {
            cluster.stepClock(leader, step);
            runner.sleepFor(length);
        } finally {
            cluster.stepClock(leader, Duration.ZERO);
        }
        return new FaultWindow(Fault.LEADER_CLOCK_STEP, start, Event.now(), "server " + leader.name() + " (" + cluster.leaderRole() + ")", h.token(),
                "its wall clock stepped " + Durations.format(step) + " ahead while " + h.who() + " was client " + h.process().client
                        + ", for " + Durations.format(length) + ", then set honest again", null);
    }

    String whyClocksCannotStep() {
        return cluster.whyClocksCannotStep();
    }

    /** The client a fault aims at, the token it held then (0: none), and how to name it in the report. */
    private record Holder(ClientProcess process, long token, String who) {
    }

    /**
     * A holder between its read and its write, asked to linger in its critical section for {@code length}
     * plus a lease, checking its hold every 100 ms, so that a hold still saying valid after the store freed the
     * lock is in the history: waits up to 10 s for one (a cluster that has just been through a fault may grant
     * nothing for seconds); else the holder as it is, else any live client.
     */
    private Holder lingeringHolder(Duration length, String purpose) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() - deadline < 0) {
            for (ClientProcess p : runner.liveClients()) {
                if (p.inPauseOfAtLeast(10)) {
                    long token = p.linger(length.plus(settings.lease()).toMillis(), Duration.ofMillis(500));
                    if (token != 0) {
                        return new Holder(p, token, "the holder (lingering in its critical section, checking its hold)");
                    }
                }
            }
            Thread.sleep(1);
        }
        List<ClientProcess> live = runner.liveClients();
        if (live.isEmpty()) {
            throw new IllegalStateException("no live client to aim at (a client " + purpose + ")");
        }
        ClientProcess p = live.stream().filter(c -> c.holding() != 0).findFirst().orElse(live.get(0));
        long token = p.holding();
        return new Holder(p, token, token != 0 ? "the holder" : "a client");
    }

    private List<Network.Member> others(Network.Member... excluded) {
        List<Network.Member> rest = new ArrayList<>(network.members());
        rest.removeAll(List.of(excluded));
        return rest;
    }

    /** A follower client {@code p} has a connection to (the first found), or null if it is connected to none. */
    private Network.Member followerOf(ClientProcess p, Network.Member leader) throws IOException {
        Set<String> servers = new LinkedHashSet<>();
        String out = network.exec(clientMembers.get(p.client - 1), "ss", "-Htn", "state", "established");
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            for (String field : f) { // the peer, as 10.77.0.11:2181 or [::ffff:10.77.0.11]:2181 (a Java socket is IPv6)
                if (field.endsWith(":" + cluster.clientPort())) {
                    String host = field.substring(0, field.lastIndexOf(':')).replace("[", "").replace("]", "").replace("::ffff:", "");
                    servers.add(host);
                }
            }
        }
        for (Network.Member s : cluster.servers()) {
            if (!s.equals(leader) && servers.contains(s.address())) {
                return s;
            }
        }
        return null;
    }

    private FaultWindow partitioned(Fault fault, String target, long token, Duration length, List<Network.Member> cutOff,
                                    List<Network.Member> rest, String what) throws Exception {
        long start = Event.now();
        Partition p;
        try {
            p = network.partition(cutOff, rest);
            runner.sleepFor(length);
        } finally {
            network.heal();
        }
        return new FaultWindow(fault, start, Event.now(), target, token, what + " for " + Durations.format(length) + ", then healed",
                null, p.sides());
    }

    /**
     * SIGKILLs the leader (after what the cluster does first: a PostgreSQL standby is cut off from it for a lease),
     * lets the cluster fail over, and starts it again after the restart downtime.
     */
    FaultWindow leaderKill() throws Exception {
        Network.Member leader = leader();
        long start = Event.now();
        String before;
        long token;
        long pid;
        try {
            before = cluster.beforeLeaderKill(leader, settings.lease());
            token = runner.holderToken();
            pid = cluster.pid(leader);
            cluster.kill(leader);
        } finally {
            network.heal();
        }
        String failOver = cluster.failOver(leader);
        Thread.sleep(settings.restartDowntime().toMillis());
        cluster.restart(leader);
        return new FaultWindow(Fault.LEADER_KILL, start, Event.now(), "server " + leader.name() + " (" + cluster.leaderRole() + ")", token,
                (before.isEmpty() ? "" : before + ", then ") + "SIGKILL pid " + pid + (failOver.isEmpty() ? "" : ", " + failOver) + ", down " + Durations.format(settings.restartDowntime())
                        + ", started again " + cluster.restartedAs() + " (pid " + cluster.pid(leader) + ")", null);
    }

    /** SIGSTOPs the leader for 1.5 leases plus half a second, then SIGCONT. */
    FaultWindow leaderPause() throws Exception {
        Network.Member leader = leader();
        long token = runner.holderToken();
        long pid = cluster.pid(leader);
        long start = Event.now();
        try {
            runner.signals().send(pid, "STOP");
            runner.sleepFor(runner.pauseLength());
        } finally {
            runner.signals().send(pid, "CONT");
        }
        return new FaultWindow(Fault.LEADER_PAUSE, start, Event.now(), "server " + leader.name() + " (" + cluster.leaderRole() + ")", token,
                "SIGSTOP pid " + pid + " for " + Durations.format(runner.pauseLength()) + ", then SIGCONT", null);
    }

    /** Slows the leader's link (a quarter lease of delay and 30% loss, or the loss alone without netem). */
    FaultWindow slowLink() throws Exception {
        Network.Member leader = leader();
        long token = runner.holderToken();
        long start = Event.now();
        String how;
        try {
            how = network.slow(leader, settings.lease().dividedBy(4), 30);
            runner.sleepFor(runner.pauseLength());
        } finally {
            network.heal();
        }
        return new FaultWindow(Fault.SLOW_LINK, start, Event.now(), "server " + leader.name() + " (" + cluster.leaderRole() + ")", token,
                how + " for " + Durations.format(runner.pauseLength()) + ", then restored", null);
    }

    private Network.Member leader() throws InterruptedException {
        Network.Member leader = cluster.awaitLeader(Duration.ofSeconds(20));
        if (leader == null) {
            throw new IllegalStateException("no server says it leads (waited 20 s)");
        }
        return leader;
    }

    /** Kills the servers and removes the network with everything still running in it. */
    @Override
    public void close() {
        try {
            cluster.close();
        } finally {
            network.close();
        }
    }
}
