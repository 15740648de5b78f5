package io.holdfast.bench.redis;

import io.holdfast.Durations;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
 * Holdfast's Redis backend vs Redisson (RLock, RFencedLock) vs Spring Integration's RedisLockRegistry, one
 * library at a time on the same Redis server, with the measured PING round trip as the floor. Prints a
 * Markdown report. Starts a throwaway {@code redis-server} on a free loopback port unless {@code --redis}
 * names one.
 *
 * <pre>java -cp holdfast-bench/target/holdfast-bench.jar io.holdfast.bench.redis.RedisBench</pre>
 */
@Command(name = "redis-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Holdfast (Redis) vs Redisson RLock/RFencedLock vs Spring RedisLockRegistry on one Redis server.")
public final class RedisBench implements Callable<Integer> {
    private static final List<String> ALL = List.of("holdfast", "redisson", "redisson-fenced", "spring");

    @Option(names = "--redis", description = "host:port of a Redis server to use (default: start redis-server on a free loopback port)")
    String redis;

    @Option(names = "--libraries", split = ",", description = "from holdfast,redisson,redisson-fenced,spring (default: all)")
    List<String> libraries = ALL;

    @Option(names = "--seconds", description = "measured seconds per library and row (default: ${DEFAULT-VALUE})")
    int seconds = 5;

    @Option(names = "--warmup", description = "warm-up seconds before each measurement (default: ${DEFAULT-VALUE})")
    int warmup = 2;

    @Option(names = "--clients", split = ",", description = "client counts of the hand-off rows (default: 8,16)")
    List<Integer> clients = List.of(8, 16);

    @Option(names = "--locks", description = "locks held in the renewal row (default: ${DEFAULT-VALUE})")
    int locks = 10_000;

    @Option(names = "--lease", description = "lease (watchdog timeout, expireAfter) in the renewal row (default: 3s)")
    String lease = "3s";

    @Option(names = "--output", description = "also write the Markdown here")
    Path output;

    private RedisCommands<String, String> admin;
    private final StringBuilder md = new StringBuilder();

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.exit(new CommandLine(new RedisBench()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Process server = null;
        String host = "127.0.0.1";
        int port;
        if (redis == null) {
            port = freePort();
            Path dir = Files.createTempDirectory("redis-bench-");
            server = new ProcessBuilder("/usr/bin/redis-server", "--port", Integer.toString(port), "--bind", host, "--save", "",
                    "--appendonly", "no", "--dir", dir.toString(), "--logfile", dir.resolve("redis.log").toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
        } else {
            host = redis.substring(0, redis.lastIndexOf(':'));
            port = Integer.parseInt(redis.substring(redis.lastIndexOf(':') + 1));
        }
        Process started = server;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (started != null) {
                started.destroy();
            }
        }));
        RedisClient lettuce = RedisClient.create();
        try (StatefulRedisConnection<String, String> connection = connect(lettuce, host, port)) {
            admin = connection.sync();
            Map<String, RedisContender> contenders = new LinkedHashMap<>();
            for (String l : libraries) {
                switch (l.toLowerCase(Locale.ROOT)) {
                    case "holdfast" -> contenders.put(l, new RedisContender.HoldfastRedis(host, port));
                    case "redisson" -> contenders.put(l, new RedisContender.RedissonLocks(host, port, false));
                    case "redisson-fenced" -> contenders.put(l, new RedisContender.RedissonLocks(host, port, true));
                    case "spring" -> contenders.put(l, new RedisContender.SpringRedisLockRegistry(host, port));
                    default -> throw new CommandLine.ParameterException(new CommandLine(this), "libraries are " + ALL + "; got " + l);
                }
            }
            String version = admin.info("server").lines().filter(s -> s.startsWith("redis_version:")).findFirst().orElse("?");
            md.append("## Redis: Holdfast vs Redisson vs Spring RedisLockRegistry\n\n");
            md.append("Redis ").append(version.replace("redis_version:", "")).append(" at ").append(host).append(':').append(port)
                    .append(server != null ? " (started by the benchmark, no persistence)" : "").append("; ")
                    .append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ").append(System.getProperty("java.version"))
                    .append("; ").append(seconds).append(" s measured after ").append(warmup).append(" s warm-up per library and row; ")
                    .append("load average at start: ").append(loadAverage()).append(".\n\n");
            md.append("| library | waiting | renewal |\n|---|---|---|\n");
            contenders.values().forEach(c -> md.append("| ").append(c.name()).append(" | ").append(c.howItWaits()).append(" | ")
                    .append(c.howItRenews()).append(" |\n"));
            md.append('\n');

            double floorMicros = ping(connection);
            uncontended(contenders, floorMicros);
            for (int n : clients) {
                contended(contenders, n);
            }
            manyHeld(contenders, Durations.parse(lease));
        } finally {
            lettuce.shutdown();
            if (server != null) {
                server.destroy();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
        System.out.println(md);
        if (output != null) {
            Files.writeString(output, md.toString(), StandardCharsets.UTF_8);
        }
        return 0;
    }

    private static StatefulRedisConnection<String, String> connect(RedisClient lettuce, String host, int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return lettuce.connect(RedisURI.create(host, port));
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    // --------------------------------------------------------------------------------------- rows

    /** The floor: PING round trips on one connection, one at a time. */
    private double ping(StatefulRedisConnection<String, String> connection) {
        Histogram h = new Histogram(3);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup);
        while (System.nanoTime() < end) {
            connection.sync().ping();
        }
        end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long n = 0;
        long start = System.nanoTime();
        while (System.nanoTime() < end) {
            long t = System.nanoTime();
            connection.sync().ping();
            h.recordValue((System.nanoTime() - t) / 1000);
            n++;
        }
        double secs = (System.nanoTime() - start) / 1e9;
        double p50 = h.getValueAtPercentile(50);
        md.append("### PING round trip (the floor)\n\n| ops/s | p50 µs | p99 µs | floor for acquire+release (2 round trips), p50 µs |\n|---|---|---|---|\n");
        md.append(String.format(Locale.ROOT, "| %.0f | %.0f | %.0f | %.0f |%n%n", n / secs, p50, (double) h.getValueAtPercentile(99), 2 * p50));
        progress("ping: p50 %.0f µs", p50);
        return p50;
    }

    /** One client, one thread: try-acquire a free lock and release it, over and over. */
    private void uncontended(Map<String, RedisContender> contenders, double pingP50) throws Exception {
        md.append("### Uncontended acquire + release (one client, one thread)\n\n");
        md.append("| library | ops/s | p50 µs | p99 µs | p50 / 2 PINGs | script calls per op |\n|---|---|---|---|---|---|\n");
        for (RedisContender c : contenders.values()) {
            try (RedisContender.Client client = c.newClient(Duration.ofSeconds(30), false)) {
                String name = "uncontended";
                loop(client, name, warmup, null);
                Map<String, Long> before = stats();
                Histogram h = new Histogram(3);
                long start = System.nanoTime();
                long ops = loop(client, name, seconds, h);
                double secs = (System.nanoTime() - start) / 1e9;
                Map<String, Long> after = stats();
                double p50 = h.getValueAtPercentile(50);
                md.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.2f | %.2f |%n", c.name(), ops / secs, p50,
                        (double) h.getValueAtPercentile(99), p50 / (2 * pingP50), delta(before, after, "scripts") / (double) ops));
                progress("uncontended %s: %.0f ops/s, p50 %.0f µs", c.name(), ops / secs, p50);
            } catch (Exception e) {
                md.append("| ").append(c.name()).append(" | failed: ").append(e).append(" |||||| \n");
            }
        }
        md.append('\n');
    }

    private static long loop(RedisContender.Client client, String name, int seconds, Histogram h) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long ops = 0;
        while (System.nanoTime() < end) {
            long t = System.nanoTime();
            RedisContender.Held held = client.tryAcquire(name);
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

    /** {@code n} clients, each its own instance and thread, take turns on one lock: acquire (waiting), release, again. */
    private void contended(Map<String, RedisContender> contenders, int n) throws Exception {
        md.append("### Contended hand-off: ").append(n).append(" clients on one lock\n\n");
        md.append("| library | hand-offs/s | wait p50 µs | wait p99 µs | script calls per hand-off | PUBLISH per hand-off |\n"
                + "|---|---|---|---|---|---|\n");
        for (RedisContender c : contenders.values()) {
            List<RedisContender.Client> cs = new ArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(n);
            try {
                for (int i = 0; i < n; i++) {
                    cs.add(c.newClient(Duration.ofSeconds(30), false));
                }
                String name = "contended-" + n;
                AtomicBoolean measuring = new AtomicBoolean();
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong acquisitions = new AtomicLong();
                AtomicInteger inside = new AtomicInteger();
                AtomicInteger overlaps = new AtomicInteger();
                Histogram waits = new Histogram(3);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> workers = new ArrayList<>();
                for (RedisContender.Client client : cs) {
                    workers.add(threads.submit(() -> {
                        go.await();
                        while (!stop.get()) {
                            long t = System.nanoTime();
                            RedisContender.Held held = client.acquire(name, Duration.ofSeconds(60));
                            if (held == null) {
                                throw new IllegalStateException("not acquired within 60 s");
                            }
                            long waited = (System.nanoTime() - t) / 1000;
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            if (measuring.get()) {
                                acquisitions.incrementAndGet();
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
                if (overlaps.get() > 0) {
                    throw new IllegalStateException(overlaps.get() + " overlapping holds: exclusion broken");
                }
                md.append(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.2f | %.2f |%n", c.name(), ops / secs,
                        (double) waits.getValueAtPercentile(50), (double) waits.getValueAtPercentile(99),
                        delta(before, after, "scripts") / (double) ops, delta(before, after, "publish") / (double) ops));
                progress("contended x%d %s: %.0f hand-offs/s, %.2f script calls per hand-off", n, c.name(), ops / secs,
                        delta(before, after, "scripts") / (double) ops);
            } catch (Exception e) {
                md.append("| ").append(c.name()).append(" | failed: ").append(e).append(" |||||| \n");
                progress("contended x%d %s failed: %s", n, c.name(), e);
            } finally {
                threads.shutdownNow();
                cs.forEach(RedisContender.Client::close);
            }
        }
        md.append('\n');
    }

    /** One client takes {@code locks} locks and keeps them with the library's renewal; the server's cost per second of holding. */
    private void manyHeld(Map<String, RedisContender> contenders, Duration leaseLength) throws Exception {
        md.append("### Renewal cost: ").append(locks).append(" locks held by one client, lease ").append(Durations.format(leaseLength))
                .append(" (renewed every ").append(Durations.format(leaseLength.dividedBy(3))).append(")\n\n");
        md.append("| library | take all, s | script calls/s while holding | Redis CPU ms per s | still held at end |\n"
                + "|---|---|---|---|---|\n");
        for (RedisContender c : contenders.values()) {
            try (RedisContender.Client client = c.newClient(leaseLength, true)) {
                List<RedisContender.Held> held = new ArrayList<>(locks);
                long t = System.nanoTime();
                for (int i = 0; i < locks; i++) {
                    RedisContender.Held h = client.tryAcquire("many/" + i);
                    if (h == null) {
                        throw new IllegalStateException("free lock many/" + i + " refused");
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
                long stillHeld = countKeysHeld();
                md.append(String.format(Locale.ROOT, "| %s | %.1f | %.0f | %.0f | %d of %d |%n", c.name(), take,
                        delta(before, after, "scripts") / secs, delta(before, after, "cpu_us") / 1000.0 / secs, stillHeld, locks));
                progress("many held %s: %.0f script calls/s", c.name(), delta(before, after, "scripts") / secs);
                for (RedisContender.Held h : held) {
                    h.release();
                }
            } catch (Exception e) {
                md.append("| ").append(c.name()).append(" | failed: ").append(e).append(" ||||| \n");
                progress("many held %s failed: %s", c.name(), e);
            }
        }
        md.append('\n');
    }

    /** Keys with a TTL that hold a lock of the renewal row, in any library's naming, counted by SCAN. */
    private long countKeysHeld() {
        long n = 0;
        io.lettuce.core.ScanCursor cursor = io.lettuce.core.ScanCursor.INITIAL;
        io.lettuce.core.ScanArgs args = io.lettuce.core.ScanArgs.Builder.matches("*many/*").limit(5000);
        do {
            io.lettuce.core.KeyScanCursor<String> page = admin.scan(cursor, args);
            for (String key : page.getKeys()) {
                if (!key.endsWith(":token") && !key.endsWith(":queue") && !key.endsWith(":turn") && admin.pttl(key) > 0) {
                    n++;
                }
            }
            cursor = page;
        } while (!cursor.isFinished());
        return n;
    }

    // --------------------------------------------------------------------------------------- server counters

    /** Server counters: script calls, PUBLISH calls, all commands, CPU microseconds. */
    private Map<String, Long> stats() {
        Map<String, Long> m = new LinkedHashMap<>();
        long scripts = 0;
        long publish = 0;
        for (String line : admin.info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String cmd = line.substring(8, line.indexOf(':'));
            long calls = 0;
            for (String part : line.substring(line.indexOf(':') + 1).split(",")) {
                if (part.startsWith("calls=")) {
                    calls = Long.parseLong(part.substring(6));
                }
            }
            if (cmd.equals("evalsha") || cmd.equals("eval") || cmd.equals("evalsha_ro") || cmd.equals("eval_ro") || cmd.equals("fcall")) {
                scripts += calls;
            }
            if (cmd.equals("publish") || cmd.equals("spublish")) {
                publish += calls;
            }
        }
        m.put("scripts", scripts);
        m.put("publish", publish);
        String info = admin.info("stats") + admin.info("cpu");
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("total_commands_processed:")) {
                m.put("total", Long.parseLong(line.substring(line.indexOf(':') + 1).trim()));
            }
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                m.merge("cpu_us", (long) (Double.parseDouble(line.substring(line.indexOf(':') + 1).trim()) * 1e6), Long::sum);
            }
        }
        return m;
    }

    /**
     * The change of one counter, less the INFO calls this benchmark itself made (3 per snapshot, counted in
     * the total only).
     */
    private static long delta(Map<String, Long> before, Map<String, Long> after, String key) {
        long d = after.getOrDefault(key, 0L) - before.getOrDefault(key, 0L);
        return key.equals("total") ? d - 3 : d;
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

    /** Versions of the benchmarked libraries, filled in by the build. */
    static String version(String library) {
        try (InputStream in = RedisBench.class.getResourceAsStream("versions.properties")) {
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
