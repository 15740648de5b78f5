package io.holdfast.bench.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.etcd.EtcdFencing;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Holdfast's etcd backend vs jetcd's {@code Lock} client (etcd's server-side lock API), one library at a time on
 * the same etcd cluster: uncontended acquire + release, contended hand-off, and what each does about a stale
 * holder. Starts a throwaway 3-member cluster on free loopback ports unless {@code --endpoints} names one. Prints
 * a Markdown report. Counts what the clients sent from etcd's own metrics (gRPC messages received by all members,
 * Raft proposals committed).
 *
 * <pre>java -cp holdfast-bench/target/holdfast-bench.jar io.holdfast.bench.etcd.EtcdBench</pre>
 */
@Command(name = "etcd-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Holdfast (etcd) vs jetcd's Lock client on one etcd cluster.")
public final class EtcdBench implements Callable<Integer> {
    private static final List<String> ALL = List.of("holdfast", "jetcd");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Option(names = "--endpoints", split = ",", description = "host:port of the members of an etcd cluster to use "
            + "(default: start a cluster of --members members on free loopback ports)")
    List<String> endpoints;

    @Option(names = "--members", description = "members of the cluster the benchmark starts (default: ${DEFAULT-VALUE})")
    int members = 3;

    @Option(names = "--libraries", split = ",", description = "from holdfast,jetcd (default: both)")
    List<String> libraries = ALL;

    @Option(names = "--seconds", description = "measured seconds per library and row (default: ${DEFAULT-VALUE})")
    int seconds = 5;

    @Option(names = "--warmup", description = "warm-up seconds before each measurement (default: ${DEFAULT-VALUE})")
    int warmup = 2;

    @Option(names = "--clients", split = ",", description = "client counts of the hand-off rows (default: 8,32)")
    List<Integer> clients = List.of(8, 32);

    @Option(names = "--output", description = "also write the Markdown here")
    Path output;

    private final StringBuilder md = new StringBuilder();
    private final String prefix = "bench-" + UUID.randomUUID().toString().substring(0, 8);

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        java.util.logging.Logger.getLogger("io.grpc").setLevel(java.util.logging.Level.WARNING);
        System.exit(new CommandLine(new EtcdBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        EtcdServers servers = null;
        if (endpoints == null || endpoints.isEmpty()) {
            servers = EtcdServers.start(members);
            endpoints = servers.endpoints();
        }
        EtcdServers started = servers;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (started != null) {
                started.close();
            }
        }));
        try (Client raw = Client.builder().endpoints(endpoints.stream().map(e -> "http://" + e).toArray(String[]::new)).build()) {
            Map<String, EtcdContender> contenders = new LinkedHashMap<>();
            for (String l : libraries) {
                switch (l.toLowerCase(Locale.ROOT)) {
                    case "holdfast" -> contenders.put(l, new EtcdContender.HoldfastEtcd(endpoints, prefix + "/holdfast"));
                    case "jetcd" -> contenders.put(l, new EtcdContender.JetcdLock(endpoints, prefix + "/jetcd"));
                    default -> throw new CommandLine.ParameterException(new CommandLine(this), "libraries are " + ALL + "; got " + l);
                }
            }
            String version = raw.getMaintenanceClient().statusMember("http://" + endpoints.get(0)).get(10, TimeUnit.SECONDS).getVersion();
            md.append("## etcd: Holdfast vs jetcd's Lock client\n\n");
            md.append("etcd ").append(version).append(", ").append(endpoints.size()).append(" member(s) at ").append(String.join(",", endpoints))
                    .append(servers != null ? " (started by the benchmark on loopback, default timing, data on local disk)" : "")
                    .append("; ").append(Runtime.getRuntime().availableProcessors()).append(" cores shared by the members and the clients, Java ")
                    .append(System.getProperty("java.version")).append("; ").append(seconds).append(" s measured after ").append(warmup)
                    .append(" s warm-up per library and row; load average at start: ").append(loadAverage()).append(".\n\n");
            md.append("| library | how it waits and renews | fencing |\n|---|---|---|\n");
            contenders.values().forEach(c -> md.append("| ").append(c.name()).append(" | ").append(c.howItWorks()).append(" | ")
                    .append(c.fencing()).append(" |\n"));
            md.append('\n');

            floor(raw);
            uncontended(contenders);
            for (int n : clients) {
                contended(contenders, n);
            }
            staleWrites(raw, contenders);
        } finally {
            if (servers != null) {
                servers.close();
            }
        }
        System.out.println(md);
        if (output != null) {
            Files.writeString(output, md.toString(), StandardCharsets.UTF_8);
        }
        return 0;
    }

    // --------------------------------------------------------------------------------------- rows

    /** The floor: a linearizable read and a write (one Raft proposal), one at a time. */
    private void floor(Client raw) throws Exception {
        ByteSequence key = utf8(prefix + "/floor");
        Histogram reads = new Histogram(3);
        Histogram writes = new Histogram(3);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup);
        while (System.nanoTime() < end) {
            raw.getKVClient().put(key, key).get();
            raw.getKVClient().get(key).get();
        }
        end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            long t = System.nanoTime();
            raw.getKVClient().put(key, key).get();
            writes.recordValue((System.nanoTime() - t) / 1000);
            t = System.nanoTime();
            raw.getKVClient().get(key).get();
            reads.recordValue((System.nanoTime() - t) / 1000);
        }
        md.append("### Floor: one etcd call at a time (jetcd, same cluster)\n\n| call | p50 µs | p99 µs |\n|---|---|---|\n");
        md.append(String.format(Locale.ROOT, "| Put (one Raft proposal) | %d | %d |%n| Range (linearizable read) | %d | %d |%n%n",
                writes.getValueAtPercentile(50), writes.getValueAtPercentile(99), reads.getValueAtPercentile(50), reads.getValueAtPercentile(99)));
        progress("floor: put p50 %d µs, get p50 %d µs", writes.getValueAtPercentile(50), reads.getValueAtPercentile(50));
    }

    /** One client, one thread: acquire a free lock and release it, over and over. */
    private void uncontended(Map<String, EtcdContender> contenders) throws Exception {
        md.append("### Uncontended acquire + release (one client, one thread)\n\n");
        md.append("| library | ops/s | p50 µs | p99 µs | gRPC messages per op | Raft proposals per op |\n|---|---|---|---|---|---|\n");
        for (EtcdContender c : contenders.values()) {
            try (EtcdContender.Client client = c.newClient()) {
                String name = "uncontended";
                loop(client, name, warmup, null);
                Counters before = counters();
                Histogram h = new Histogram(3);
                long start = System.nanoTime();
                long ops = loop(client, name, seconds, h);
                double secs = (System.nanoTime() - start) / 1e9;
                Counters used = counters().minus(before);
                md.append(String.format(Locale.ROOT, "| %s | %.0f | %d | %d | %.2f | %.2f |%n", c.name(), ops / secs,
                        h.getValueAtPercentile(50), h.getValueAtPercentile(99), used.messages / ops, used.proposals / ops));
                progress("uncontended %s: %.0f ops/s, p50 %d µs", c.name(), ops / secs, h.getValueAtPercentile(50));
            } catch (Exception e) {
                md.append("| ").append(c.name()).append(" | failed: ").append(e).append(" ||||| \n");
                progress("uncontended %s failed: %s", c.name(), e);
            }
        }
        md.append('\n');
    }

    private static long loop(EtcdContender.Client client, String name, int seconds, Histogram h) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long ops = 0;
        while (System.nanoTime() < end) {
            long t = System.nanoTime();
            client.acquire(name, Duration.ofSeconds(10)).release();
            if (h != null) {
                h.recordValue((System.nanoTime() - t) / 1000);
            }
            ops++;
        }
        return ops;
    }

    /**
     * {@code n} clients, each its own instance and thread, take turns on one lock: acquire (waiting), release,
     * again. The hand-off time runs from the moment a holder starts its release to the moment the next holder's
     * acquire returns.
     */
    private void contended(Map<String, EtcdContender> contenders, int n) throws Exception {
        md.append("### Contended hand-off: ").append(n).append(" clients on one lock\n\n");
        md.append("| library | hand-offs/s | hand-off p50 µs | hand-off p99 µs | wait p50 ms | wait p99 ms | gRPC messages per hand-off "
                + "| Raft proposals per hand-off | overlapping holders |\n|---|---|---|---|---|---|---|---|---|\n");
        for (EtcdContender c : contenders.values()) {
            List<EtcdContender.Client> cs = new ArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(n);
            try {
                for (int i = 0; i < n; i++) {
                    cs.add(c.newClient());
                }
                String name = "contended-" + n;
                AtomicBoolean measuring = new AtomicBoolean();
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong acquisitions = new AtomicLong();
                AtomicLong releaseStarted = new AtomicLong();
                AtomicInteger inside = new AtomicInteger();
                AtomicInteger overlaps = new AtomicInteger();
                Histogram waits = new Histogram(3);
                Histogram handoffs = new Histogram(3);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> workers = new ArrayList<>();
                for (EtcdContender.Client client : cs) {
                    workers.add(threads.submit(() -> {
                        go.await();
                        while (!stop.get()) {
                            long t = System.nanoTime();
                            EtcdContender.Held held = client.acquire(name, Duration.ofSeconds(60));
                            long granted = System.nanoTime();
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            long previousRelease = releaseStarted.get();
                            if (measuring.get()) {
                                acquisitions.incrementAndGet();
                                synchronized (waits) {
                                    waits.recordValue((granted - t) / 1000);
                                    if (previousRelease != 0) {
                                        handoffs.recordValue(Math.max(0, granted - previousRelease) / 1000);
                                    }
                                }
                            }
                            inside.decrementAndGet();
                            releaseStarted.set(System.nanoTime());
                            held.release();
                        }
                        return null;
                    }));
                }
                go.countDown();
                Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
                Counters before = counters();
                long start = System.nanoTime();
                measuring.set(true);
                Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
                measuring.set(false);
                double secs = (System.nanoTime() - start) / 1e9;
                Counters used = counters().minus(before);
                long ops = acquisitions.get();
                stop.set(true);
                for (Future<?> w : workers) {
                    w.get(120, TimeUnit.SECONDS);
                }
                md.append(String.format(Locale.ROOT, "| %s | %.0f | %d | %d | %.1f | %.1f | %.2f | %.2f | %d |%n", c.name(), ops / secs,
                        handoffs.getValueAtPercentile(50), handoffs.getValueAtPercentile(99), waits.getValueAtPercentile(50) / 1000.0,
                        waits.getValueAtPercentile(99) / 1000.0, used.messages / ops, used.proposals / ops, overlaps.get()));
                progress("contended x%d %s: %.0f hand-offs/s, hand-off p50 %d µs", n, c.name(), ops / secs, handoffs.getValueAtPercentile(50));
            } catch (Exception e) {
                md.append("| ").append(c.name()).append(" | failed: ").append(e).append(" |||||||| \n");
                progress("contended x%d %s failed: %s", n, c.name(), e);
            } finally {
                threads.shutdownNow();
                cs.forEach(EtcdContender.Client::close);
            }
        }
        md.append('\n');
    }

    /**
     * Kleppmann's pause, simulated: the holder's lease is revoked behind its back (what etcd does when a paused
     * holder's lease runs out), another client takes the lock and writes, then the old holder writes late. Also
     * measures what the fencing check costs on a write.
     */
    private void staleWrites(Client raw, Map<String, EtcdContender> contenders) throws Exception {
        md.append("### A holder that lost its lock without knowing (its lease revoked behind its back), then writes\n\n");
        md.append("| library | the stale holder's write | data afterwards | write p50 µs (fenced / plain put) |\n|---|---|---|---|\n");
        ByteSequence data = utf8(prefix + "/data/stock");
        for (EtcdContender c : contenders.values()) {
            try {
                if (c instanceof EtcdContender.HoldfastEtcd h) {
                    staleHoldfast(raw, h, data);
                } else if (c instanceof EtcdContender.JetcdLock j) {
                    staleJetcd(raw, j, data);
                }
            } catch (Exception e) {
                md.append("| ").append(c.name()).append(" | failed: ").append(e).append(" ||| \n");
                progress("stale write %s failed: %s", c.name(), e);
            }
        }
        md.append('\n');
    }

    private void staleHoldfast(Client raw, EtcdContender.HoldfastEtcd c, ByteSequence data) throws Exception {
        String name = "stale";
        try (Holdfast a = Holdfast.connect(c.uri()); Holdfast b = Holdfast.connect(c.uri()); EtcdFencing fenceA = EtcdFencing.open(c.uri());
             EtcdFencing fenceB = EtcdFencing.open(c.uri())) {
            Hold old = a.lock(name).acquire(Duration.ofSeconds(10));
            // The cost of fencing a write, measured while the hold is good.
            Histogram fenced = new Histogram(3);
            Histogram plain = new Histogram(3);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < end) {
                long t = System.nanoTime();
                if (!fenceA.putIfHeld(old, text(data), "warm")) {
                    throw new IllegalStateException("fenced write refused while held");
                }
                fenced.recordValue((System.nanoTime() - t) / 1000);
                t = System.nanoTime();
                raw.getKVClient().put(data, utf8("warm")).get();
                plain.recordValue((System.nanoTime() - t) / 1000);
            }
            revokeLeaseOfHolder(raw, name);
            Hold next = b.lock(name).acquire(Duration.ofSeconds(30));
            fenceB.putIfHeld(next, text(data), "written by the new holder");
            boolean applied = fenceA.putIfHeld(old, text(data), "stale write");
            String after = value(raw, data);
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %d / %d |%n", c.name(), applied ? "applied" : "rejected by etcd (Txn compare failed)",
                    after, fenced.getValueAtPercentile(50), plain.getValueAtPercentile(50)));
            progress("stale write Holdfast: %s", applied ? "applied" : "rejected");
            next.close();
            try {
                old.close();
            } catch (RuntimeException e) {
                // lost, as expected
            }
        }
    }

    private void staleJetcd(Client raw, EtcdContender.JetcdLock c, ByteSequence data) throws Exception {
        try (Client a = Client.builder().endpoints(endpoints.stream().map(e -> "http://" + e).toArray(String[]::new)).build();
             EtcdContender.Client b = c.newClient()) {
            long lease = a.getLeaseClient().grant(30).get(10, TimeUnit.SECONDS).getID();
            a.getLockClient().lock(utf8(prefix + "/jetcd/stale"), lease).get(10, TimeUnit.SECONDS);
            raw.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
            EtcdContender.Held next = b.acquire("stale", Duration.ofSeconds(30));
            raw.getKVClient().put(data, utf8("written by the new holder")).get(10, TimeUnit.SECONDS);
            a.getKVClient().put(data, utf8("stale write")).get(10, TimeUnit.SECONDS); // jetcd offers no conditional write
            String after = value(raw, data);
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | - / same as plain |%n", c.name(),
                    after.equals("stale write") ? "applied (nothing to check it against)" : "not applied", after));
            progress("stale write jetcd: %s", after);
            next.release();
        }
    }

    /** Revokes the lease of the key holding Holdfast's lock {@code name} (its client's session lease). */
    private void revokeLeaseOfHolder(Client raw, String name) throws Exception {
        ByteSequence lockKeys = utf8(prefix + "/holdfast/" + name + "!");
        List<KeyValue> kvs = raw.getKVClient().get(lockKeys, GetOption.builder().isPrefix(true)
                .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build())
                .get(10, TimeUnit.SECONDS).getKvs();
        if (kvs.isEmpty()) {
            throw new IllegalStateException("no holder key under " + text(lockKeys));
        }
        raw.getLeaseClient().revoke(kvs.get(0).getLease()).get(10, TimeUnit.SECONDS);
    }

    // --------------------------------------------------------------------------------------- server counters

    /** What every member received (gRPC messages, all methods) and the Raft proposals committed (the leader's count). */
    private record Counters(double messages, double proposals) {
        Counters minus(Counters o) {
            return new Counters(messages - o.messages, proposals - o.proposals);
        }
    }

    private Counters counters() throws Exception {
        double messages = 0;
        double proposals = 0;
        for (String e : endpoints) {
            String body = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + e + "/metrics")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            for (String line : body.split("\n")) {
                if (line.startsWith("grpc_server_msg_received_total{") && !line.contains("grpc.health")) {
                    messages += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                } else if (line.startsWith("etcd_server_proposals_committed_total ")) {
                    proposals = Math.max(proposals, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
                }
            }
        }
        return new Counters(messages, proposals);
    }

    // --------------------------------------------------------------------------------------- helpers

    private static String value(Client raw, ByteSequence key) throws Exception {
        List<KeyValue> kvs = raw.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? "(none)" : text(kvs.get(0).getValue());
    }

    private static ByteSequence utf8(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static String text(ByteSequence b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    private static void progress(String format, Object... args) {
        System.err.printf(format + "%n", args);
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** Versions of the benchmarked libraries, filled in by the build. */
    static String version(String library) {
        try (InputStream in = EtcdBench.class.getResourceAsStream("versions.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty(library, "?");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
