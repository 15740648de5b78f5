package io.holdfast.testkit.torture.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A store of several servers, each a process in its own namespace of a {@link Network}
 * (members {@code s1} to {@code s3} at {@code 10.77.0.11} to {@code .13} unless {@link #serverNames()} says otherwise), that the torture harness can
 * kill, start again, pause, and ask which one leads. {@link #start} brings up the whole cluster and waits
 * until every server answers; {@link #close} kills the servers (the network's own clean-up would too).
 */
public abstract class Cluster implements AutoCloseable {
    private static final Duration READY_WAIT = Duration.ofSeconds(120);

    /** The network the servers live in. */
    protected final Network network;
    /** Where data directories and logs go. */
    protected final Path dir;
    private final List<Network.Member> servers = new ArrayList<>();
    private final Map<String, Process> processes = new LinkedHashMap<>();

    protected Cluster(Network network, Path dir) {
        this.network = network;
        this.dir = dir;
    }

    /** Adds the servers' namespaces ({@link #serverNames()}), starts them and waits until every one answers. */
    public final void start() throws Exception {
        Files.createDirectories(dir);
        List<String> names = serverNames();
        for (int i = 0; i < names.size(); i++) {
            Files.deleteIfExists(dir.resolve(names.get(i) + ".log")); // a log holds this run only (restarts append to it)
            servers.add(network.add(names.get(i), 11 + i));
        }
        for (Network.Member s : servers) {
            launch(s);
        }
        for (Network.Member s : servers) {
            awaitAnswering(s);
        }
        afterStart();
    }

    /** Runs once every server answers, before any client starts: joins the servers into one store if they need telling. */
    protected void afterStart() throws Exception {
    }

    /**
     * The servers' member names, in start order, at {@code 10.77.0.11} onwards; {@code s1} to {@code s3}
     * unless a cluster has more (at most 80).
     */
    protected List<String> serverNames() {
        return List.of("s1", "s2", "s3");
    }

    /** What the server {@link #leader()} returns is, for the report: {@code leader} unless a store has none. */
    public String leaderRole() {
        return "leader";
    }

    /** How a server killed and started again comes back, for the report: {@code on its data} unless a store says otherwise. */
    public String restartedAs() {
        return "on its data";
    }

    /**
     * Whether this store's servers run with a wall clock {@link #stepClock} can step ({@code clockstep.so},
     * see {@code ServerClocks}); false unless a store says so.
     */
    protected boolean stepsClocks() {
        return false;
    }

    /** Why {@link #stepClock} cannot step this store's clocks here, or null if it can. */
    public final String whyClocksCannotStep() {
        return stepsClocks() ? ServerClocks.whyUnavailable() : "only the Redis topologies' servers run with a clock that can be stepped";
    }

    /**
     * Sets the wall clock of the running {@code server} {@code offset} away from the machine's (0: honest
     * again), at once; its monotonic clock is untouched. A server started again starts honest.
     *
     * @throws IllegalStateException if {@link #whyClocksCannotStep()} says why not
     */
    public final void stepClock(Network.Member server, Duration offset) throws IOException {
        String why = whyClocksCannotStep();
        if (why != null) {
            throw new IllegalStateException("cannot step " + server + "'s clock: " + why);
        }
        ServerClocks.set(clockFile(server), offset);
    }

    private Path clockFile(Network.Member server) {
        return dir.resolve(server.name() + ".clock");
    }

    /** The URI clients inside the network use, naming every server. */
    public abstract String uri();

    /** The store, for the report: which software, how many servers, the settings that matter. */
    public abstract String describe();

    /** The servers' network members, as {@link #serverNames()} names them. */
    public final List<Network.Member> servers() {
        return List.copyOf(servers);
    }

    /** The network the cluster lives in. */
    public final Network network() {
        return network;
    }

    /** The server's command line (run inside its namespace). */
    protected abstract List<String> command(Network.Member server) throws IOException;

    /** Whether the server answers its protocol now. */
    protected abstract boolean answers(Network.Member server);

    /** Whether the server says it leads; false if it does not answer. */
    protected abstract boolean leads(Network.Member server);

    /** The port clients connect to on every server. */
    public abstract int clientPort();

    /** The server that says it leads, or null if none does right now. */
    public final Network.Member leader() {
        for (Network.Member s : servers) {
            if (isAlive(s) && leads(s)) {
                return s;
            }
        }
        return null;
    }

    /** Waits up to {@code wait} for a leader. */
    public final Network.Member awaitLeader(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        Network.Member l;
        while ((l = leader()) == null && System.nanoTime() - deadline < 0) {
            Thread.sleep(100);
        }
        return l;
    }

    /** The server's process id (the server itself: {@code ip netns exec} execs it), or 0 if it is not running. */
    public final synchronized long pid(Network.Member server) {
        Process p = processes.get(server.name());
        return p != null && p.isAlive() ? p.pid() : 0;
    }

    /** Whether the server's process runs. */
    public final synchronized boolean isAlive(Network.Member server) {
        Process p = processes.get(server.name());
        return p != null && p.isAlive();
    }

    /** SIGKILLs the server, and the processes it started (PostgreSQL's backends), and waits until it is gone. */
    public final synchronized void kill(Network.Member server) throws InterruptedException {
        Process p = processes.get(server.name());
        if (p != null) {
            List<ProcessHandle> children = p.descendants().toList();
            p.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
            p.waitFor(30, TimeUnit.SECONDS);
            for (ProcessHandle c : children) {
                try {
                    c.onExit().get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    System.err.println("cluster: pid " + c.pid() + " of " + server + " survived SIGKILL: " + e);
                }
            }
        }
    }

    /**
     * Runs after the leader was killed, before it is started again: a store whose servers do not fail over by
     * themselves (a PostgreSQL standby) is failed over here. Nothing by default.
     *
     * @return what was done, for the report, or "" if nothing
     */
    public String failOver(Network.Member killedLeader) throws Exception {
        return "";
    }

    /**
     * Runs just before the leader is killed; whatever it cuts off ({@link Network#partition}) is healed once the
     * leader is dead. Nothing by default.
     *
     * @param lag how long a store may let its replicas fall behind
     * @return what was done, for the report, or "" if nothing
     */
    public String beforeLeaderKill(Network.Member leader, Duration lag) throws Exception {
        return "";
    }

    /** Starts the server again on its data directory and waits until it answers. */
    public final void restart(Network.Member server) throws Exception {
        launch(server);
        awaitAnswering(server);
    }

    private synchronized void launch(Network.Member server) throws IOException {
        Path log = dir.resolve(server.name() + ".log");
        List<String> command = command(server);
        if (stepsClocks() && ServerClocks.whyUnavailable() == null) {
            command = ServerClocks.wrap(clockFile(server), command);
        }
        Process p = new ProcessBuilder(network.inside(server, command))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        processes.put(server.name(), p);
    }

    private void awaitAnswering(Network.Member server) throws Exception {
        long deadline = System.nanoTime() + READY_WAIT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!isAlive(server)) {
                throw new IllegalStateException(server + " exited at start; its log:\n" + tail(server));
            }
            if (answers(server)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(server + " did not answer within " + READY_WAIT.toSeconds() + " s; its log:\n" + tail(server));
    }

    /** The last lines of the server's log. */
    public final String tail(Network.Member server) {
        try {
            List<String> lines = Files.readAllLines(dir.resolve(server.name() + ".log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /**
     * What a plain TCP request to {@code port} on the server's own loopback answers within 3 s (bash's
     * {@code /dev/tcp}, run inside its namespace), or "" if nothing.
     */
    protected final String ask(Network.Member server, int port, String request) {
        try {
            Commands.Outcome o = Commands.run(List.of("nsenter", "--net=/run/netns/" + server.namespace(), "timeout", "3", "bash", "-c",
                    "exec 3<>/dev/tcp/127.0.0.1/" + port + " && printf '%s' \"$0\" >&3 && cat <&3", request), null);
            return o.output();
        } catch (IOException e) {
            return "";
        }
    }

    /** Kills every server. */
    @Override
    public void close() {
        for (Network.Member s : servers) {
            try {
                kill(s);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
