package io.holdfast.testkit.torture;

import io.holdfast.Durations;
import io.holdfast.Holdfast;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Runs a torture test: starts the client processes ({@link TortureClient}), injects faults on a schedule
 * while they work, stops them, merges their histories, checks them ({@link Checker}) and writes a text
 * and an HTML report into the report directory.
 *
 * <pre>{@code
 * TortureResult result = new TortureRunner(TortureSettings.builder("jdbc:postgresql://127.0.0.1:5432/test?user=postgres")
 *         .clients(4).duration(Duration.ofSeconds(30)).faults(Fault.parseList("kill,pause,partition"))
 *         .reportDir(Path.of("target/torture")).build())
 *     .progress(System.err::println)
 *     .run();
 * }</pre>
 *
 * <p>Schedule: no fault for the first 2 seconds (at most a fifth of the run); then the faults of the list
 * in turn, each followed by a quiet time of one lease plus a second; none starts unless it can end, and the
 * system settle, before the run does. Kills and pauses aim at the holder while it is between reading the
 * counters and writing them; partitions alternate between a waiting client and the holder. A partition lasts 1.5 leases plus half a second, so the hold it
 * hits outlives its lease; so does every other pause, and the pauses between last until another client
 * has taken the lock and read the counters, so the stale holder writes while the new one is between its
 * read and its write. Client processes are started with this JVM's {@code java} and class
 * path, so whatever backends this JVM can load, they can.
 *
 * <p>Everything is bounded: the clients exit on their own after the run's duration plus two minutes,
 * when they read {@code STOP}, or when this JVM goes away (their standard input closes); the runner kills
 * any that are still there at the end.
 */
public final class TortureRunner {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    private static final PartitionProxy.Mode[] PARTITION_MODES = {PartitionProxy.Mode.DELAY, PartitionProxy.Mode.DROP, PartitionProxy.Mode.RESET};

    private final TortureSettings settings;
    private StoreControl storeControl;
    private Consumer<String> progress = line -> { };

    private final List<FaultWindow> faults = new CopyOnWriteArrayList<>();
    private final List<ClientLife> lives = new CopyOnWriteArrayList<>();
    private final List<List<PartitionProxy>> proxies = new ArrayList<>();
    private ClientProcess[] clients;
    private List<String> clientUris;
    private Path historyDir;
    private Path logDir;
    private String runId;
    private String registerUrl;
    private Signals signals;
    private Random random;
    private volatile boolean stopping;
    private volatile long endAtNanos;
    /** True while some fault asked for has not had its turn and the scheduler may still give it one. */
    private volatile boolean faultsPending = true;
    private int partitions;
    private int pauses;
    private ClusterRun clusterRun;
    private ClientCommand clientCommand;

    /** A runner for {@code settings}; nothing starts before {@link #run()}. */
    public TortureRunner(TortureSettings settings) {
        this.settings = settings;
    }

    /** Lets the {@link Fault#RESTART} fault kill and start the store; without it restarts are skipped. */
    public TortureRunner storeControl(StoreControl control) {
        this.storeControl = control;
        return this;
    }

    /** Where progress lines go (one per phase and per fault); nowhere by default. */
    public TortureRunner progress(Consumer<String> sink) {
        this.progress = sink;
        return this;
    }

    /**
     * Runs the test and writes the reports.
     *
     * @return what the checker found
     * @throws io.holdfast.StoreUnavailableException if the store cannot be reached at the start
     * @throws IllegalArgumentException if no backend on the class path accepts the URI
     * @throws IllegalStateException if the clients cannot be started or the register cannot be set up
     */
    public TortureResult run() throws Exception {
        Path dir = settings.reportDir().toAbsolutePath();
        historyDir = dir.resolve("history");
        logDir = dir.resolve("logs");
        Files.createDirectories(historyDir);
        Files.createDirectories(logDir);
        RunFiles.clearOldRun(historyDir, "client-*.tsv");
        RunFiles.clearOldRun(logDir, "client-*.log");
        byte[] id = new byte[6];
        new SecureRandom().nextBytes(id);
        runId = HexFormat.of().formatHex(id);
        random = new Random(settings.seed());
        registerUrl = settings.registerUrl() != null ? settings.registerUrl() : "jdbc:sqlite:" + dir.resolve("register.db");
        clientCommand = new ClientCommand(settings, registerUrl, runId, historyDir);

        String store;
        if (settings.topology() != null) {
            clusterRun = ClusterRun.start(this, settings, dir, progress);
            store = clusterRun.describe();
        } else {
            try (Holdfast holdfast = Holdfast.connect(settings.uri())) {
                store = holdfast.describe();
            }
        }
        try (Register register = new Register(registerUrl, runId)) {
            register.create();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot set up the register table in " + io.holdfast.Uris.redact(registerUrl) + ": "
                    + e.getMessage() + " (is its JDBC driver on the class path?)", e);
        }
        progress.accept("torture: " + settings.clients() + " clients" + (settings.threads() > 1 ? " (odd ones with " + settings.threads()
                + " threads)" : "") + (settings.permits() > 1 ? " taking 1 of " + settings.permits() + " permits" : "") + " on " + store + " for " + Durations.format(settings.duration())
                + ", faults " + (settings.faults().isEmpty() ? "none" : String.join(",", settings.faults().stream().map(Fault::label).toList()))
                + ", lease " + Durations.format(settings.lease()) + "; run " + runId + ", report in " + dir);

        Thread scheduler = null;
        long startMicros;
        long endMicros;
        signals = new Signals();
        try {
            setUpProxies();
            clients = new ClientProcess[settings.clients()];
            for (int c = 1; c <= settings.clients(); c++) {
                clients[c - 1] = startClient(c, 1);
            }
            for (ClientProcess p : clients) {
                if (!p.awaitReady(READY_TIMEOUT)) {
                    throw new IllegalStateException("client " + p.name() + " did not get ready within " + Durations.format(READY_TIMEOUT)
                            + "; its log " + p.log + ":\n" + RunFiles.tail(p.log));
                }
            }
            startMicros = Event.now();
            endAtNanos = System.nanoTime() + settings.duration().toNanos();
            progress.accept("torture: all clients ready; running");
            scheduler = new Thread(this::scheduleFaults, "torture-faults");
            scheduler.setDaemon(true);
            scheduler.start();
            long end;
            do { // the scheduler may move the end later, so that every fault gets its turn
                end = endAtNanos;
                sleepUntil(end);
                if (faultsPending && end == endAtNanos) {
                    Thread.sleep(50); // a fault is under way; the scheduler extends the run before the next one
                }
            } while ((end != endAtNanos || faultsPending) && !stopping);
            stopping = true;
            scheduler.join(Duration.ofMinutes(3).toMillis());
            endMicros = Event.now();
            stopClients();
        } finally {
            stopping = true;
            if (scheduler != null && scheduler.isAlive()) {
                scheduler.interrupt();
            }
            if (clients != null) {
                for (ClientProcess p : clients) {
                    if (p != null) {
                        try {
                            signals.send(p.process.pid(), "CONT");
                        } catch (IOException e) {
                            // SIGKILL below ends a stopped process too
                        }
                        p.kill();
                    }
                }
            }
            proxies.forEach(list -> list.forEach(PartitionProxy::close));
            signals.close();
            if (clusterRun != null) {
                clusterRun.close();
            }
        }
        for (ClientProcess p : clients) {
            lives.add(p.life());
        }

        long[] finals;
        try (Register register = new Register(registerUrl, runId)) {
            finals = register.read();
        }
        List<Event> events = History.readAll(historyDir);
        RunFiles.writeMergedHistory(dir.resolve("history.tsv"), events);
        RunFiles.writeFaults(dir.resolve("faults.tsv"), faults);
        Checker.Analysis analysis = Checker.check(store, settings, startMicros, endMicros, events, lives, faults, finals);
        Path text = dir.resolve("report.txt");
        Path html = dir.resolve("report.html");
        Files.writeString(text, TextReport.render(analysis, text, html), StandardCharsets.UTF_8);
        Files.writeString(html, HtmlReport.render(analysis), StandardCharsets.UTF_8);
        progress.accept("torture: done; " + text + " and " + html);
        return analysis.toResult(text, html);
    }

    private void setUpProxies() {
        Map<String, Integer> endpoints = settings.faults().contains(Fault.PARTITION) && clusterRun == null
                ? Endpoints.loopbackPorts(settings.uri()) : Map.of();
        clientUris = new ArrayList<>();
        for (int c = 1; c <= settings.clients(); c++) {
            if (endpoints.isEmpty()) {
                proxies.add(List.of());
                clientUris.add(clusterRun != null ? clusterRun.uri() : settings.uri());
                continue;
            }
            List<PartitionProxy> mine = new ArrayList<>();
            java.util.Map<Integer, Integer> portMap = new java.util.HashMap<>();
            for (int port : endpoints.values()) {
                PartitionProxy proxy = new PartitionProxy("127.0.0.1", port);
                mine.add(proxy);
                portMap.put(port, proxy.port());
            }
            proxies.add(mine);
            clientUris.add(Endpoints.rewrite(settings.uri(), portMap::get));
        }
    }

    private ClientProcess startClient(int client, int incarnation) throws IOException {
        List<String> cmd = clientCommand.of(client, incarnation, clientUris.get(client - 1));
        return ClientProcess.start(client, incarnation, clusterRun == null ? cmd : clusterRun.clientCommand(client, cmd),
                logDir.resolve("client-" + client + "-" + incarnation + ".log"));
    }

    // ------------------------------------------------------------------------------------------ faults

    Duration pauseLength() {
        return settings.lease().multipliedBy(3).dividedBy(2).plusMillis(500);
    }

    private Duration recovery() {
        return settings.lease().plusSeconds(1);
    }

    private Duration expectedLength(Fault f) {
        return switch (f) {
            case PAUSE, PARTITION, LEADER_PARTITION, MINORITY_PARTITION, LEADER_PAUSE, SLOW_LINK -> pauseLength();
            case ONE_WAY_PARTITION, LEADER_CLOCK_STEP -> pauseLength().plusSeconds(4); // with the search for a holder
            case FOLLOWER_PARTITION -> settings.lease().multipliedBy(3).plusSeconds(4);
            case KILL, RESTART -> Duration.ofSeconds(3);
            case LEADER_KILL -> settings.restartDowntime().plusSeconds(5);
        };
    }

    private String whyNot(Fault f) {
        if (f.needsTopology() && clusterRun == null) {
            return "needs a cluster topology (--topology etcd3, zk3, sentinel, redlock5, rediscluster, pg2 or pg2sync), whose servers and clients have network namespaces of their own";
        }
        return switch (f) {
            case RESTART -> clusterRun != null ? "in a topology, leader-kill kills and restarts a server"
                    : storeControl == null ? "the harness did not start this store, so it cannot restart it "
                    + "(give the runner a StoreControl; on the command line, --store-stop and --store-start)" : null;
            case PARTITION -> clusterRun == null && proxies.get(0).isEmpty() ? "the URI names no loopback host:port to put a proxy in front of" : null;
            case LEADER_CLOCK_STEP -> clusterRun.whyClocksCannotStep();
            default -> null;
        };
    }

    private void scheduleFaults() {
        try {
            scheduleEachFault();
        } finally {
            faultsPending = false;
        }
    }

    private void scheduleEachFault() {
        List<Fault> order = new ArrayList<>(settings.faults());
        if (order.isEmpty()) {
            return;
        }
        // A fault this run cannot inject is reported as such up front, whatever share of the schedule a busy
        // machine lets the others take.
        for (Fault f : List.copyOf(order)) {
            String why = whyNot(f);
            if (why != null) {
                order.remove(f);
                long now = Event.now();
                faults.add(new FaultWindow(f, now, now, "", 0, "", why));
                progress.accept("torture: skipping " + f.label() + ": " + why);
            }
        }
        if (order.isEmpty()) {
            return;
        }
        // Every fault asked for gets one turn however slow the machine: a run that would end before a fault's
        // first turn is extended for it, up to three times its duration.
        long latestEnd = endAtNanos + 2 * settings.duration().toNanos();
        java.util.Set<Fault> hadTurn = java.util.EnumSet.noneOf(Fault.class);
        try {
            Duration warmUp = min(Duration.ofSeconds(2), settings.duration().dividedBy(5));
            sleepUntil(System.nanoTime() + warmUp.toNanos());
            int i = 0;
            while (!stopping) {
                Fault f = order.get(i++ % order.size());
                long needed = expectedLength(f).plus(recovery()).toNanos();
                long now = System.nanoTime();
                if (endAtNanos - now < needed) {
                    if (hadTurn.contains(f) || (now + needed - latestEnd > 0 && settings.topology() == null)) {
                        return; // in a topology every fault gets its turn, however slow the machine (a fault ends healed)
                    }
                    endAtNanos = now + needed;
                    progress.accept("torture: running " + Durations.format(Duration.ofNanos(needed)) + " longer so that "
                            + f.label() + " gets its turn");
                }
                hadTurn.add(f);
                if (hadTurn.size() == order.size()) {
                    faultsPending = false;
                }
                FaultWindow w;
                try {
                    w = inject(f);
                } catch (InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    long at = Event.now();
                    faults.add(new FaultWindow(f, at, at, "", 0, "", "failed, and no further fault was injected: " + e));
                    progress.accept("torture: " + f.label() + " failed; no further fault: " + e);
                    return;
                }
                faults.add(w);
                progress.accept(String.format(Locale.ROOT, "torture: %s %s%s for %.1fs: %s", f.label(), w.target(),
                        w.heldToken() != 0 ? " (holding token " + w.heldToken() + ")" : "", (w.endMicros() - w.startMicros()) / 1e6, w.detail()));
                sleepUntil(System.nanoTime() + recovery().toNanos());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private FaultWindow inject(Fault f) throws Exception {
        return switch (f) {
            case KILL -> kill();
            case PAUSE -> pause();
            case PARTITION -> partition();
            case RESTART -> restartStore();
            case LEADER_PARTITION -> clusterRun.leaderPartition();
            case FOLLOWER_PARTITION -> clusterRun.followerPartition();
            case MINORITY_PARTITION -> clusterRun.minorityPartition();
            case ONE_WAY_PARTITION -> clusterRun.oneWayPartition();
            case LEADER_KILL -> clusterRun.leaderKill();
            case LEADER_PAUSE -> clusterRun.leaderPause();
            case SLOW_LINK -> clusterRun.slowLink();
            case LEADER_CLOCK_STEP -> clusterRun.leaderClockStep();
        };
    }

    /**
     * The client that holds the lock and has read the counters, with at least 10 ms of its pause before
     * writing ahead (waiting up to 3 s for one); else one that holds the lock; else a random live client.
     */
    private synchronized ClientProcess pickTarget() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (System.nanoTime() - deadline < 0 && !stopping) {
            for (ClientProcess p : clients) {
                if (p.isAlive() && p.inPauseOfAtLeast(10)) {
                    return p;
                }
            }
            Thread.sleep(0, 200_000);
        }
        for (ClientProcess p : clients) {
            if (p.isAlive() && p.holding() != 0) {
                return p;
            }
        }
        List<ClientProcess> alive = new ArrayList<>();
        for (ClientProcess p : clients) {
            if (p.isAlive()) {
                alive.add(p);
            }
        }
        return alive.isEmpty() ? clients[0] : alive.get(random.nextInt(alive.size()));
    }

    /** A live client that does not say it holds the lock, at random; the first client if none. */
    private ClientProcess pickWaiter() {
        List<ClientProcess> waiting = new ArrayList<>();
        for (ClientProcess p : clients) {
            if (p.isAlive() && p.holding() == 0) {
                waiting.add(p);
            }
        }
        return waiting.isEmpty() ? clients[0] : waiting.get(random.nextInt(waiting.size()));
    }

    private FaultWindow kill() throws Exception {
        ClientProcess target = pickTarget();
        long token = target.holding();
        long start = Event.now();
        target.kill();
        lives.add(target.life());
        Thread.sleep(300);
        ClientProcess replacement = startClient(target.client, target.incarnation + 1);
        clients[target.client - 1] = replacement;
        boolean ready = replacement.awaitReady(Duration.ofSeconds(60));
        return new FaultWindow(Fault.KILL, start, Event.now(), "client " + target.client, token,
                "SIGKILL pid " + target.process.pid() + "; replaced by pid " + replacement.process.pid()
                        + (ready ? "" : " (not ready within 60s)"), null);
    }

    /**
     * Every other pause lasts a fixed 1.5 leases plus half a second; the ones between wait for the lock to
     * pass to another client and for that client to read the counters, and resume the paused holder then, so
     * that its stale writes land inside the new holder's critical section, between its read and its write:
     * the interleaving that defeats a fence checked at the write only.
     */
    private FaultWindow pause() throws Exception {
        ClientProcess target = pickTarget();
        long token = target.holding();
        boolean untilSuccessor = token != 0 && pauses++ % 2 == 0;
        long start = Event.now();
        long startNanos = System.nanoTime();
        boolean stopped = signals.send(target.process.pid(), "STOP");
        String how;
        try {
            if (untilSuccessor) {
                long latest = startNanos + pauseLength().multipliedBy(2).toNanos();
                ClientProcess successor = null;
                while (successor == null && System.nanoTime() - latest < 0 && !stopping) {
                    for (ClientProcess p : clients) {
                        // With permits, another client may hold one already: wait for a later acquisition.
                        if (p != target && p.isAlive() && p.betweenReadAndWrite() && p.holding() != token
                                && (!settings.sharedHolds() || p.holding() > token)) {
                            successor = p;
                        }
                    }
                    Thread.sleep(0, 200_000);
                }
                if (successor != null) {
                    how = String.format(Locale.ROOT, "SIGSTOP until client %d held the lock (token %d) and had read the counters "
                            + "(after %.2fs); SIGCONT", successor.client, successor.holding(), (System.nanoTime() - startNanos) / 1e9);
                } else {
                    how = "SIGSTOP; no other client took the lock within " + Durations.format(pauseLength().multipliedBy(2)) + "; SIGCONT";
                }
            } else {
                sleepUntil(startNanos + pauseLength().toNanos(), false);
                how = "SIGSTOP for " + Durations.format(pauseLength()) + ", then SIGCONT";
            }
        } finally {
            signals.send(target.process.pid(), "CONT");
        }
        return new FaultWindow(Fault.PAUSE, start, Event.now(), "client " + target.client, token,
                stopped ? how : "SIGSTOP failed (the process was gone)", null);
    }

    /**
     * Partitions rotate through delay, drop and reset, and alternate between a waiting client (its next
     * acquire is answered late, lost, or refused) and the holder (its release and renewals are).
     */
    private FaultWindow partition() throws Exception {
        int n = partitions++;
        ClientProcess target = n % 2 == 0 ? pickWaiter() : pickTarget();
        long token = target.holding();
        if (clusterRun != null) {
            return clusterRun.partitionClient(target, token, token != 0 ? "the holder" : "a waiter");
        }
        PartitionProxy.Mode mode = PARTITION_MODES[n % PARTITION_MODES.length];
        List<PartitionProxy> mine = proxies.get(target.client - 1);
        long start = Event.now();
        for (PartitionProxy p : mine) {
            switch (mode) {
                case DROP -> p.drop();
                case RESET -> p.reset();
                default -> p.delay(settings.lease());
            }
        }
        try {
            sleepUntil(System.nanoTime() + pauseLength().toNanos(), false);
        } finally {
            mine.forEach(PartitionProxy::heal);
        }
        String how = switch (mode) {
            case DROP -> "traffic dropped (connections black-holed)";
            case RESET -> "connections reset and refused";
            default -> "traffic delayed by " + Durations.format(settings.lease()) + " each way";
        };
        return new FaultWindow(Fault.PARTITION, start, Event.now(), "client " + target.client, token,
                (token != 0 ? "the holder: " : "a waiter: ") + how + " for " + Durations.format(pauseLength()) + ", then healed", null);
    }

    /**
     * Restarts the store while a holder is between its read and its write (waiting up to 3 s for one with
     * half its think time ahead), so that a store which forgets its holds on restart can grant the lock to
     * another client while the old holder is still at work.
     */
    private FaultWindow restartStore() throws Exception {
        ClientProcess holder = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        long ahead = settings.think().toMillis() / 2;
        while (holder == null && System.nanoTime() - deadline < 0 && !stopping) {
            for (ClientProcess p : clients) {
                if (p.isAlive() && p.inPauseOfAtLeast(ahead)) {
                    holder = p;
                }
            }
            Thread.sleep(0, 200_000);
        }
        long token = holder == null ? 0 : holder.holding();
        long start = Event.now();
        storeControl.kill();
        Thread.sleep(settings.restartDowntime().toMillis());
        Exception failure = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                storeControl.start();
                failure = null;
                break;
            } catch (Exception e) {
                failure = e;
                Thread.sleep(1_000);
            }
        }
        if (failure != null) {
            throw new IllegalStateException("the store did not start again: " + failure, failure);
        }
        return new FaultWindow(Fault.RESTART, start, Event.now(), "store", token,
                storeControl.describe() + " killed, down " + Durations.format(settings.restartDowntime()) + ", started again"
                        + (holder == null ? "" : " (client " + holder.client + " was between its read and its write)"), null);
    }

    // ------------------------------------------------------------------------------------------ end

    private void stopClients() throws InterruptedException {
        for (ClientProcess p : clients) {
            p.requestStop();
        }
        long deadline = System.nanoTime() + settings.acquireWait().plus(settings.think()).plusSeconds(20).toNanos();
        for (ClientProcess p : clients) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                p.process.waitFor(left, java.util.concurrent.TimeUnit.NANOSECONDS);
            }
        }
        for (ClientProcess p : clients) {
            if (p.isAlive()) {
                progress.accept("torture: client " + p.name() + " did not stop in time; killing it");
                p.kill();
            }
        }
    }

    private void sleepUntil(long nanos) throws InterruptedException {
        sleepUntil(nanos, true);
    }

    /** Sleeps {@code d}, whether or not the run is stopping (a fault's window always runs its length). */
    void sleepFor(Duration d) throws InterruptedException {
        sleepUntil(System.nanoTime() + d.toNanos(), false);
    }

    /** The token a live client says it holds, or 0. */
    long holderToken() {
        for (ClientProcess p : liveClients()) {
            if (p.holding() != 0) {
                return p.holding();
            }
        }
        return 0;
    }

    /** The live client processes. */
    List<ClientProcess> liveClients() {
        List<ClientProcess> alive = new ArrayList<>();
        for (ClientProcess p : clients) {
            if (p != null && p.isAlive()) {
                alive.add(p);
            }
        }
        return alive;
    }

    Signals signals() {
        return signals;
    }

    /** Sleeps until {@code nanos} ({@link System#nanoTime()}), in short steps; {@code interruptible}: also until the stop. */
    private void sleepUntil(long nanos, boolean interruptible) throws InterruptedException {
        while (true) {
            long left = nanos - System.nanoTime();
            if (left <= 0 || (interruptible && stopping)) {
                return;
            }
            Thread.sleep(Math.max(1, Math.min(100, left / 1_000_000)));
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
