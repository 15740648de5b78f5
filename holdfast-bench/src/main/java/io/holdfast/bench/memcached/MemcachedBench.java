package io.holdfast.bench.memcached;

import io.holdfast.Durations;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
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
 * Holdfast's Memcached backend on one Memcached server: uncontended acquire + release, contended hand-off,
 * and the cost of keeping many locks renewed. There is no maintained Java lock library for Memcached to
 * compare with, so the table sets Holdfast beside the floor: the seeds' naive lock ({@code add} with an
 * expiry, blind {@code delete}, no token, no renewal), which is unsafe and shown only for its cost. Starts
 * a throwaway {@code memcached} on a free loopback port unless {@code --memcached} names one.
 *
 * <pre>java -cp holdfast-bench/target/holdfast-bench.jar io.holdfast.bench.memcached.MemcachedBench</pre>
 */
@Command(name = "memcached-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Holdfast (Memcached) beside the naive add/delete lock, on one Memcached server.")
public final class MemcachedBench implements Callable<Integer> {
    private static final List<String> ALL = List.of("holdfast", "holdfast-fastpoll", "naive");

    @Option(names = "--memcached", description = "host:port of a Memcached server to use (default: start /usr/bin/memcached on a free loopback port)")
    String memcached;

    @Option(names = "--libraries", split = ",", description = "from holdfast (default maxPoll 100ms), holdfast-fastpoll (maxPoll = --poll), naive (default: all)")
    List<String> libraries = ALL;

    @Option(names = "--seconds", description = "measured seconds per library and row (default: ${DEFAULT-VALUE})")
    int seconds = 5;

    @Option(names = "--warmup", description = "warm-up seconds before each measurement (default: ${DEFAULT-VALUE})")
    int warmup = 2;

    @Option(names = "--clients", split = ",", description = "client counts of the hand-off rows (default: 8)")
    List<Integer> clients = List.of(8);

    @Option(names = "--locks", description = "locks held in the renewal row (default: ${DEFAULT-VALUE})")
    int locks = 1_000;

    @Option(names = "--lease", description = "lease in the renewal row, renewed every lease/3 (default: 3s)")
    String lease = "3s";

    @Option(names = "--poll", description = "retry interval of the naive lock's wait, and maxPoll of holdfast-fastpoll (default: 10ms)")
    String poll = "10ms";

    @Option(names = "--output", description = "also write the Markdown here")
    Path output;

    private String host = "127.0.0.1";
    private int port;
    private final StringBuilder md = new StringBuilder();

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.exit(new CommandLine(new MemcachedBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Process server = null;
        if (memcached == null) {
            port = freePort();
            server = new ProcessBuilder("/usr/bin/memcached", "-l", host, "-p", Integer.toString(port), "-U", "0", "-m", "256",
                    "-u", System.getProperty("user.name")).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } else {
            host = memcached.substring(0, memcached.lastIndexOf(':'));
            port = Integer.parseInt(memcached.substring(memcached.lastIndexOf(':') + 1));
        }
        Process started = server;
        Thread reaper = new Thread(() -> {
            if (started != null) {
                started.destroy();
            }
        });
        Runtime.getRuntime().addShutdownHook(reaper);
        try {
            String version = awaitServer();
            Map<String, MemcachedContender> contenders = new LinkedHashMap<>();
            Duration pollEvery = Durations.parse(poll);
            for (String l : libraries) {
                switch (l.toLowerCase(Locale.ROOT)) {
                    case "holdfast" -> contenders.put(l, new MemcachedContender.HoldfastMemcached(host, port, null));
                    case "holdfast-fastpoll" -> contenders.put(l, new MemcachedContender.HoldfastMemcached(host, port, pollEvery));
                    case "naive" -> contenders.put(l, new MemcachedContender.NaiveAddDelete(host, port, pollEvery));
                    default -> throw new CommandLine.ParameterException(new CommandLine(this), "libraries are " + ALL + "; got " + l);
                }
            }
            md.append("## Memcached: Holdfast beside the naive add/delete lock\n\n");
            md.append("Memcached ").append(version).append(" at ").append(host).append(':').append(port)
                    .append(server != null ? " (started by the benchmark)" : "").append("; ")
                    .append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ").append(System.getProperty("java.version"))
                    .append(", load average at start ").append(loadAverage()).append("; ").append(seconds).append(" s measured after ")
                    .append(warmup).append(" s warm-up per library and row.\n\n");
            md.append("| library | waiting | renewal |\n|---|---|---|\n");
            contenders.values().forEach(c -> md.append("| ").append(c.name()).append(" | ").append(c.howItWaits()).append(" | ")
                    .append(c.howItRenews()).append(" |\n"));
            md.append('\n');

            uncontended(contenders);
            for (int n : clients) {
                contended(contenders, n);
            }
            manyHeld(contenders, Durations.parse(lease));
        } finally {
            if (server != null) {
                server.destroy();
                server.waitFor(10, TimeUnit.SECONDS);
            }
            Runtime.getRuntime().removeShutdownHook(reaper);
        }
        System.out.println(md);
        if (output != null) {
            Files.writeString(output, md.toString(), StandardCharsets.UTF_8);
        }
        return 0;
    }

    private String awaitServer() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return command("version").get(0).replace("VERSION ", "");
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("memcached at " + host + ":" + port + " does not answer", e);
                }
                Thread.sleep(50);
            }
        }
    }

    // --------------------------------------------------------------------------------------- rows

    /** The floor: one xmemcached binary get of a missing key at a time, as the backend's client sends them. */
    private Histogram roundTrips(int forSeconds, long[] count) throws Exception {
        XMemcachedClientBuilder builder = new XMemcachedClientBuilder(List.of(new InetSocketAddress(host, port)));
        builder.setCommandFactory(new BinaryCommandFactory());
        MemcachedClient client = builder.build();
        try {
            Histogram h = new Histogram(3);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(forSeconds);
            while (System.nanoTime() < end) {
                long t = System.nanoTime();
                client.get("bench:floor");
                h.recordValue((System.nanoTime() - t) / 1000);
                count[0]++;
            }
            return h;
        } finally {
            client.shutdown();
        }
    }

    /** One client, one thread: try-acquire a free lock and release it, over and over. */
    private void uncontended(Map<String, MemcachedContender> contenders) throws Exception {
        md.append("### 1. Uncontended acquire + release (one client, one thread)\n\n");
        md.append("| library | ops/s | p50 µs | p99 µs | p50 in round trips | Memcached commands / op |\n|---|---:|---:|---:|---:|---:|\n");
        roundTrips(warmup, new long[1]);
        long[] n = new long[1];
        long floorStart = System.nanoTime();
        Histogram floor = roundTrips(seconds, n);
        double floorSecs = (System.nanoTime() - floorStart) / 1e9;
        double floorMicros = floor.getValueAtPercentile(50);
        md.append(String.format(Locale.ROOT, "| one round trip (the floor: an xmemcached binary get of a missing key) | %,.0f | %.0f | %.0f | 1.0 | 1.00 |%n",
                n[0] / floorSecs, floorMicros, (double) floor.getValueAtPercentile(99)));
        progress("round trip: p50 %.0f µs", floorMicros);
        for (MemcachedContender c : contenders.values()) {
            try (MemcachedContender.Client client = c.newClient(0, Duration.ofSeconds(30))) {
                String name = "bench/uncontended";
                loop(client, name, warmup, null);
                Map<String, Long> before = stats();
                Histogram h = new Histogram(3);
                long start = System.nanoTime();
                long ops = loop(client, name, seconds, h);
                double secs = (System.nanoTime() - start) / 1e9;
                Map<String, Long> after = stats();
                double p50 = h.getValueAtPercentile(50);
                md.append(String.format(Locale.ROOT, "| %s | %,.0f | %.0f | %.0f | %.1f | %.2f |%n", c.name(), ops / secs, p50,
                        (double) h.getValueAtPercentile(99), p50 / floorMicros, commands(before, after) / (double) ops));
                progress("uncontended %s: %.0f ops/s, p50 %.0f µs", c.name(), ops / secs, p50);
            } catch (Exception e) {
                md.append("| ").append(c.name()).append(" | failed: ").append(e.toString().replace('|', '/')).append(" ||||| \n");
                progress("uncontended %s failed: %s", c.name(), e);
            }
        }
        md.append('\n');
    }

    private static long loop(MemcachedContender.Client client, String name, int seconds, Histogram h) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long ops = 0;
        while (System.nanoTime() < end) {
            long t = System.nanoTime();
            MemcachedContender.Held held = client.tryAcquire(name);
            if (held == null) {
                throw new IllegalStateException("a free lock was refused");
            }
            held.release();
            if (h != null) {
                h.recordValue((System.nanoTime() - t) / 1000);
            }
            ops++;
        }
        return ops;
    }

    /** {@code n} clients, each its own instance and thread, on one lock: acquire (waiting), release, again. */
    private void contended(Map<String, MemcachedContender> contenders, int n) throws Exception {
        md.append("### 2. Contended hand-off: ").append(n).append(" clients on one lock\n\n");
        md.append("| library | hand-offs/s | acquisitions/s | wait p50 ms | wait p99 ms | wait max ms | fewest / most acquisitions by one client "
                + "| Memcached commands / acquisition | overlapping holders |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (MemcachedContender c : contenders.values()) {
            List<MemcachedContender.Client> cs = new ArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(n);
            try {
                for (int i = 0; i < n; i++) {
                    cs.add(c.newClient(i, Duration.ofSeconds(30)));
                }
                String name = "bench/contended-" + n;
                AtomicBoolean measuring = new AtomicBoolean();
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong acquisitions = new AtomicLong();
                AtomicLong handoffs = new AtomicLong();
                AtomicInteger lastHolder = new AtomicInteger(-1);
                AtomicInteger inside = new AtomicInteger();
                AtomicInteger overlaps = new AtomicInteger();
                long[] perClient = new long[n];
                Histogram waits = new Histogram(3);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> workers = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    int me = i;
                    MemcachedContender.Client client = cs.get(i);
                    workers.add(threads.submit(() -> {
                        go.await();
                        while (!stop.get()) {
                            long t = System.nanoTime();
                            MemcachedContender.Held held = client.acquire(name, Duration.ofSeconds(60));
                            long waited = (System.nanoTime() - t) / 1000;
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            int previous = lastHolder.getAndSet(me);
                            if (measuring.get()) {
                                acquisitions.incrementAndGet();
                                perClient[me]++;
                                if (previous != me) {
                                    handoffs.incrementAndGet();
                                }
                                synchronized (waits) {
                                    waits.recordValue(waited);
                                }
                            }
                            inside.decrementAndGet();
                            held.release();
                        }
                        return null;
                    }));
                }
                go.countDown();
                Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
                Map<String, Long> before = stats();
                long start = System.nanoTime();
                measuring.set(true);
                Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
                measuring.set(false);
                double secs = (System.nanoTime() - start) / 1e9;
                Map<String, Long> after = stats();
                long ops = acquisitions.get();
                stop.set(true);
                for (Future<?> w : workers) {
                    w.get(120, TimeUnit.SECONDS);
                }
                long fewest = java.util.Arrays.stream(perClient).min().orElse(0);
                long most = java.util.Arrays.stream(perClient).max().orElse(0);
                md.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %.2f | %.2f | %,.0f | %,d / %,d | %.1f | %d |%n", c.name(),
                        handoffs.get() / secs, ops / secs, waits.getValueAtPercentile(50) / 1000.0, waits.getValueAtPercentile(99) / 1000.0,
                        waits.getMaxValue() / 1000.0, fewest, most, commands(before, after) / (double) Math.max(1, ops), overlaps.get()));
                progress("contended x%d %s: %.0f hand-offs/s, %d overlaps", n, c.name(), handoffs.get() / secs, overlaps.get());
            } catch (Exception e) {
                md.append("| ").append(c.name()).append(" | failed: ").append(e.toString().replace('|', '/')).append(" |||||||| \n");
                progress("contended x%d %s failed: %s", n, c.name(), e);
            } finally {
                threads.shutdownNow();
                cs.forEach(MemcachedContender.Client::close);
            }
        }
        md.append('\n');
    }

    /** One client takes {@code locks} locks and keeps them with the library's renewal; the server's work per second of holding. */
    private void manyHeld(Map<String, MemcachedContender> contenders, Duration leaseLength) throws Exception {
        md.append("### 3. Renewal cost: ").append(locks).append(" locks held by one client, lease ").append(Durations.format(leaseLength))
                .append(" (renewed every ").append(Durations.format(leaseLength.dividedBy(3))).append(")\n\n");
        md.append("| library | take all, s | Memcached commands / s while holding | still held at end |\n|---|---:|---:|---:|\n");
        for (MemcachedContender c : contenders.values()) {
            if (!c.renews()) {
                md.append("| ").append(c.name()).append(" | n/a: no renewal, its keys expire after their fixed time | | |\n");
                continue;
            }
            if (c instanceof MemcachedContender.HoldfastMemcached h && h.maxPollSet()) {
                continue; // renews exactly as the default variant does
            }
            try (MemcachedContender.Client client = c.newClient(0, leaseLength)) {
                List<MemcachedContender.Held> held = new ArrayList<>(locks);
                long t = System.nanoTime();
                for (int i = 0; i < locks; i++) {
                    MemcachedContender.Held h = client.tryAcquire("bench/many/" + i);
                    if (h == null) {
                        throw new IllegalStateException("free lock bench/many/" + i + " refused");
                    }
                    held.add(h);
                }
                double take = (System.nanoTime() - t) / 1e9;
                Thread.sleep(TimeUnit.SECONDS.toMillis(warmup) + leaseLength.toMillis());
                Map<String, Long> before = stats();
                long start = System.nanoTime();
                Thread.sleep(TimeUnit.SECONDS.toMillis(Math.max(seconds, 10)));
                double secs = (System.nanoTime() - start) / 1e9;
                Map<String, Long> after = stats();
                int stillHeld = client.countHeld();
                md.append(String.format(Locale.ROOT, "| %s | %.2f | %,.0f | %d of %d |%n", c.name(), take, commands(before, after) / secs,
                        stillHeld, locks));
                progress("many held %s: %.0f commands/s, %d of %d held", c.name(), commands(before, after) / secs, stillHeld, locks);
                for (MemcachedContender.Held h : held) {
                    h.release();
                }
            } catch (Exception e) {
                md.append("| ").append(c.name()).append(" | failed: ").append(e.toString().replace('|', '/')).append(" ||| \n");
                progress("many held %s failed: %s", c.name(), e);
            }
        }
        md.append('\n');
    }

    // --------------------------------------------------------------------------------------- server counters

    /** The server's command counters from {@code stats}. */
    private Map<String, Long> stats() throws IOException {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String line : command("stats")) {
            String[] parts = line.split(" ");
            if (parts.length == 3 && parts[0].equals("STAT")) {
                try {
                    m.put(parts[1], Long.parseLong(parts[2]));
                } catch (NumberFormatException e) {
                    // not a counter
                }
            }
        }
        return m;
    }

    /** Lock commands between two snapshots: gets, sets (add, cas), incr, delete, touch. */
    private static long commands(Map<String, Long> before, Map<String, Long> after) {
        long n = 0;
        for (String counter : List.of("cmd_get", "cmd_set", "cmd_touch", "incr_hits", "incr_misses", "delete_hits", "delete_misses")) {
            n += after.getOrDefault(counter, 0L) - before.getOrDefault(counter, 0L);
        }
        return n;
    }

    private List<String> command(String line) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 1_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            List<String> lines = new ArrayList<>();
            for (String l = in.readLine(); l != null; l = in.readLine()) {
                lines.add(l);
                if (l.equals("END") || l.startsWith("VERSION") || l.startsWith("ERROR")) {
                    break;
                }
            }
            return lines;
        }
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

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
