package io.holdfast.bench.zookeeper;

import org.HdrHistogram.Histogram;
import org.apache.zookeeper.ZooKeeper;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
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
 * Holdfast's ZooKeeper backend vs Curator's InterProcessMutex and InterProcessSemaphoreMutex, one
 * library at a time on the same ensemble: uncontended acquire + release, and hand-off between 8 and 32
 * clients on one lock, with the requests the servers received per operation (their {@code srvr}
 * counters). Starts a throwaway ZooKeeper server (or a 3-server ensemble) in a child JVM unless
 * {@code --connect} names one. Prints a Markdown report.
 *
 * <pre>java -cp holdfast-bench/target/holdfast-bench.jar io.holdfast.bench.zookeeper.ZooKeeperBench</pre>
 */
@Command(name = "zookeeper-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Holdfast (ZooKeeper) vs Curator InterProcessMutex / InterProcessSemaphoreMutex on one ensemble.")
public final class ZooKeeperBench implements Callable<Integer> {
    private static final List<String> ALL = List.of("holdfast", "curator-mutex", "curator-semaphore-mutex");

    @Option(names = "--connect", description = "host:port[,host:port...] of an ensemble to use (default: start one in a child JVM)")
    String connect;

    @Option(names = "--servers", description = "servers of the ensemble the benchmark starts: 1 or 3 (default: ${DEFAULT-VALUE})")
    int servers = 1;

    @Option(names = "--libraries", split = ",", description = "from holdfast,curator-mutex,curator-semaphore-mutex (default: all)")
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
    private List<InetSocketAddress> serverAddresses;

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.exit(new CommandLine(new ZooKeeperBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Process server = null;
        if (connect == null) {
            if (servers != 1 && servers != 3) {
                throw new CommandLine.ParameterException(new CommandLine(this), "--servers must be 1 or 3");
            }
            server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                    "-cp", System.getProperty("java.class.path"), ZooKeeperServerProcess.class.getName(), Integer.toString(servers))
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            Process started = server;
            Runtime.getRuntime().addShutdownHook(new Thread(started::destroy));
            connect = awaitConnectString(server);
        }
        serverAddresses = new ArrayList<>();
        for (String hp : connect.split(",")) {
            serverAddresses.add(new InetSocketAddress(hp.substring(0, hp.lastIndexOf(':')), Integer.parseInt(hp.substring(hp.lastIndexOf(':') + 1))));
        }
        try {
            Map<String, ZooKeeperContender> contenders = new LinkedHashMap<>();
            for (String l : libraries) {
                switch (l.toLowerCase(Locale.ROOT)) {
                    case "holdfast" -> contenders.put(l, new ZooKeeperContender.HoldfastZooKeeper(connect));
                    case "curator-mutex" -> contenders.put(l, ZooKeeperContender.CuratorLocks.mutex(connect));
                    case "curator-semaphore-mutex" -> contenders.put(l, ZooKeeperContender.CuratorLocks.semaphoreMutex(connect));
                    default -> throw new CommandLine.ParameterException(new CommandLine(this), "libraries are " + ALL + "; got " + l);
                }
            }
            String version = fourLetterWord(serverAddresses.get(0), "srvr").lines()
                    .filter(s -> s.startsWith("Zookeeper version:")).findFirst().orElse("?").replace("Zookeeper version: ", "");
            md.append("## ZooKeeper: Holdfast vs Curator InterProcessMutex / InterProcessSemaphoreMutex\n\n");
            md.append("ZooKeeper ").append(version.split(",")[0]).append(", ").append(serverAddresses.size())
                    .append(serverAddresses.size() == 1 ? " server" : " servers").append(" at ").append(connect)
                    .append(server != null ? " (started by the benchmark in a child JVM, tick 2 s)" : "").append("; ")
                    .append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ").append(System.getProperty("java.version"))
                    .append("; every client its own session of ").append(ZooKeeperContender.SESSION_MS / 1000).append(" s; ")
                    .append(seconds).append(" s measured after ").append(warmup).append(" s warm-up per library and row; load average at start: ")
                    .append(loadAverage()).append(".\n\n");
            md.append("| library | waiting |\n|---|---|\n");
            contenders.values().forEach(c -> md.append("| ").append(c.name()).append(" | ").append(c.howItWaits()).append(" |\n"));
            md.append('\n');

            double floor = floor();
            uncontended(contenders, floor);
            for (int n : clients) {
                contended(contenders, n);
            }
        } finally {
            if (server != null) {
                server.getOutputStream().close(); // the server stops when its input closes
                if (!server.waitFor(20, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
        }
        System.out.println(md);
        if (output != null) {
            Files.writeString(output, md.toString(), StandardCharsets.UTF_8);
        }
        return 0;
    }

    private static String awaitConnectString(Process server) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith(ZooKeeperServerProcess.CONNECT)) {
                return line.substring(ZooKeeperServerProcess.CONNECT.length()).trim();
            }
        }
        throw new IllegalStateException("the ZooKeeper server process exited before serving");
    }

    // --------------------------------------------------------------------------------------- rows

    /** The floor: one client's {@code exists} round trips, one at a time. */
    private double floor() throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connect, ZooKeeperContender.SESSION_MS, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            if (!connected.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no connection to " + connect);
            }
            Histogram h = new Histogram(3);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup);
            while (System.nanoTime() < end) {
                zk.exists("/", false);
            }
            // Warm the server's write path (and its JIT) too, so the first library measured does not pay for it.
            end = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(5, 3L * warmup));
            while (System.nanoTime() < end) {
                String p = zk.create("/bench-warm-up-", new byte[16], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        org.apache.zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL);
                zk.getChildren("/", false);
                zk.delete(p, -1);
            }
            end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            long n = 0;
            long start = System.nanoTime();
            while (System.nanoTime() < end) {
                long t = System.nanoTime();
                zk.exists("/", false);
                h.recordValue((System.nanoTime() - t) / 1000);
                n++;
            }
            double secs = (System.nanoTime() - start) / 1e9;
            double p50 = h.getValueAtPercentile(50);
            md.append("### Read round trip (the floor): `exists(\"/\")`, one at a time\n\n| ops/s | p50 µs | p99 µs |\n|---|---|---|\n");
            md.append(String.format(Locale.ROOT, "| %.0f | %.0f | %.0f |%n%n", n / secs, p50, (double) h.getValueAtPercentile(99)));
            progress("floor: exists p50 %.0f µs", p50);
            return p50;
        } finally {
            zk.close();
        }
    }

    /** One client, one thread: acquire a free lock and release it, over and over. */
    private void uncontended(Map<String, ZooKeeperContender> contenders, double floorMicros) {
        md.append("### Uncontended acquire + release (one client, one thread)\n\n");
        md.append("| library | ops/s | p50 µs | p99 µs | p50 / read round trip | requests per acquire + release |\n|---|---|---|---|---|---|\n");
        for (ZooKeeperContender c : contenders.values()) {
            try (ZooKeeperContender.Client client = c.newClient()) {
                String name = "uncontended";
                loop(client, name, warmup, null);
                long before = requestsReceived();
                Histogram h = new Histogram(3);
                long start = System.nanoTime();
                long ops = loop(client, name, seconds, h);
                double secs = (System.nanoTime() - start) / 1e9;
                long requests = requestsReceived() - before;
                double p50 = h.getValueAtPercentile(50);
                md.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.1f | %.2f |%n", c.name(), ops / secs, p50,
                        (double) h.getValueAtPercentile(99), p50 / floorMicros, requests / (double) ops));
                progress("uncontended %s: %.0f ops/s, p50 %.0f µs, %.2f requests/op", c.name(), ops / secs, p50, requests / (double) ops);
            } catch (Exception e) {
                md.append("| ").append(c.name()).append(" | failed: ").append(e).append(" |||||\n");
                progress("uncontended %s failed: %s", c.name(), e);
            }
        }
        md.append('\n');
    }

    private static long loop(ZooKeeperContender.Client client, String name, int seconds, Histogram h) throws Exception {
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
     * {@code n} clients, each its own session and thread, take turns on one lock. A hand-off is an
     * acquisition by another client than the previous holder; its latency runs from the moment the
     * previous holder started to release until the next one holds the lock.
     */
    private void contended(Map<String, ZooKeeperContender> contenders, int n) {
        md.append("### Contended hand-off: ").append(n).append(" clients on one lock\n\n");
        md.append("| library | acquisitions/s | hand-off p50 µs | hand-off p99 µs | wait p50 ms | wait p99 ms | requests per acquisition |"
                + " overlapping holders |\n|---|---|---|---|---|---|---|---|\n");
        for (ZooKeeperContender c : contenders.values()) {
            List<ZooKeeperContender.Client> cs = new ArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(n);
            try {
                for (int i = 0; i < n; i++) {
                    cs.add(c.newClient());
                }
                String name = "contended-" + n;
                AtomicBoolean measuring = new AtomicBoolean();
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong acquisitions = new AtomicLong();
                AtomicInteger inside = new AtomicInteger();
                AtomicInteger overlaps = new AtomicInteger();
                AtomicInteger lastHolder = new AtomicInteger(-1);
                AtomicLong releaseStarted = new AtomicLong();
                Histogram waits = new Histogram(3);
                Histogram handoffs = new Histogram(3);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> workers = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    int me = i;
                    ZooKeeperContender.Client client = cs.get(i);
                    workers.add(threads.submit(() -> {
                        go.await();
                        while (!stop.get()) {
                            long asked = System.nanoTime();
                            ZooKeeperContender.Held held = client.acquire(name, Duration.ofSeconds(120));
                            long got = System.nanoTime();
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            int previous = lastHolder.getAndSet(me);
                            if (measuring.get()) {
                                acquisitions.incrementAndGet();
                                synchronized (waits) {
                                    waits.recordValue((got - asked) / 1000);
                                    if (previous != me && previous >= 0) {
                                        handoffs.recordValue(Math.max(0, got - releaseStarted.get()) / 1000);
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
                long before = requestsReceived();
                long start = System.nanoTime();
                measuring.set(true);
                Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
                measuring.set(false);
                double secs = (System.nanoTime() - start) / 1e9;
                long requests = requestsReceived() - before;
                long ops = acquisitions.get();
                stop.set(true);
                for (Future<?> w : workers) {
                    w.get(180, TimeUnit.SECONDS);
                }
                if (overlaps.get() > 0) {
                    throw new IllegalStateException(overlaps.get() + " overlapping holds: exclusion broken");
                }
                md.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.1f | %.1f | %.2f | %d |%n", c.name(), ops / secs,
                        (double) handoffs.getValueAtPercentile(50), (double) handoffs.getValueAtPercentile(99),
                        waits.getValueAtPercentile(50) / 1000.0, waits.getValueAtPercentile(99) / 1000.0, requests / (double) ops, overlaps.get()));
                progress("contended x%d %s: %.0f acquisitions/s, hand-off p50 %d µs, %.2f requests/acquisition", n, c.name(), ops / secs,
                        handoffs.getValueAtPercentile(50), requests / (double) ops);
            } catch (Exception e) {
                md.append("| ").append(c.name()).append(" | failed: ").append(e).append(" |||||||\n");
                progress("contended x%d %s failed: %s", n, c.name(), e);
            } finally {
                threads.shutdownNow();
                cs.forEach(ZooKeeperContender.Client::close);
            }
        }
        md.append('\n');
    }

    // --------------------------------------------------------------------------------------- server counters

    /** Requests received by all servers so far ({@code srvr}'s "Received", which also counts pings). */
    private long requestsReceived() throws IOException {
        long total = 0;
        for (InetSocketAddress a : serverAddresses) {
            for (String line : fourLetterWord(a, "srvr").split("\n")) {
                if (line.startsWith("Received: ")) {
                    total += Long.parseLong(line.substring("Received: ".length()).trim());
                }
            }
        }
        return total;
    }

    private static String fourLetterWord(InetSocketAddress address, String word) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(address, 5_000);
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            socket.getInputStream().transferTo(out);
            return out.toString(StandardCharsets.US_ASCII);
        }
    }

    static String version(String library) {
        try (InputStream in = ZooKeeperBench.class.getResourceAsStream("versions.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty(library, "?");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void progress(String format, Object... args) {
        System.err.printf(format + "%n", args);
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }
}
