package io.holdfast.bench;

import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the rows against every chosen library in turn, on one PostgreSQL database, and collects the
 * results. Libraries never run at the same time, so each measurement has the server to itself (apart
 * from whatever else the machine does).
 */
final class Benchmark {
    private static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(5);

    private final Settings settings;

    Benchmark(Settings settings) {
        this.settings = settings;
    }

    /** Row 1: one client thread takes and releases one free lock, over and over. */
    record Uncontended(String library, long ops, double seconds, Histogram latency, long roundTrips, long nanosInJdbc) {
        double opsPerSecond() {
            return ops / seconds;
        }
    }

    /** Row 2: several clients, each in its own thread with its own instance, on one lock name. */
    record Contended(String library, int clients, long acquisitions, long handoffs, double seconds, Histogram waitTime,
                     long roundTrips, long overlaps) {
        double acquisitionsPerSecond() {
            return acquisitions / seconds;
        }

        double handoffsPerSecond() {
            return handoffs / seconds;
        }
    }

    /** Row 3: one client holds many locks, renewed by the library's mechanism, for a measured while. */
    record ManyHeld(String library, int locks, double takeSeconds, double seconds, int heldAtEnd, int renewalFailures,
                    long roundTrips, long nanosInJdbc, long clientCpuNanos, Long serverCpuNanos) {
        double perSecond(long value) {
            return value / seconds;
        }
    }

    /** One row's outcome for one library: a result, or why it failed. */
    record Outcome<R>(String library, R result, String error) {
    }

    /** Everything a run measured. */
    record Report(Settings settings, String server, Map<String, Contender> contenders, List<Outcome<Uncontended>> uncontended,
                  List<Outcome<Contended>> contended, List<Outcome<ManyHeld>> manyHeld) {
        boolean anyFailed() {
            return uncontended.stream().anyMatch(o -> o.error() != null) || contended.stream().anyMatch(o -> o.error() != null)
                    || manyHeld.stream().anyMatch(o -> o.error() != null);
        }
    }

    /** Runs every chosen row for every chosen library; a failure of one is reported, not thrown. */
    Report run(java.io.PrintStream progress) throws SQLException {
        // The admin connection is opened before the counter is installed, so it is never counted.
        try (Connection admin = DriverManager.getConnection(settings.jdbcUrl())) {
            JdbcCounter.install();
            String server = serverVersion(admin);
            Map<String, Contender> contenders = new LinkedHashMap<>();
            for (String library : settings.libraries()) {
                Contender c = switch (library) {
                    case "holdfast" -> new HoldfastContender(settings.jdbcUrl());
                    case "shedlock" -> new ShedLockContender(settings.jdbcUrl(), settings.poll());
                    case "spring" -> new SpringIntegrationContender(settings.jdbcUrl(), settings.poll());
                    default -> throw new IllegalArgumentException(library);
                };
                c.prepareTable(admin);
                contenders.put(library, c);
            }
            List<Outcome<Uncontended>> row1 = new ArrayList<>();
            List<Outcome<Contended>> row2 = new ArrayList<>();
            List<Outcome<ManyHeld>> row3 = new ArrayList<>();
            for (int row : settings.rows()) {
                for (Contender c : contenders.values()) {
                    progress.printf("row %d: %s ...%n", row, c.name());
                    try {
                        switch (row) {
                            case 1 -> row1.add(new Outcome<>(c.name(), uncontended(c), null));
                            case 2 -> row2.add(new Outcome<>(c.name(), contended(c), null));
                            default -> row3.add(new Outcome<>(c.name(), manyHeld(c, admin), null));
                        }
                    } catch (Exception e) {
                        if (e instanceof InterruptedException) {
                            Thread.currentThread().interrupt();
                        }
                        String error = e.getClass().getSimpleName() + ": " + e.getMessage();
                        progress.printf("row %d: %s failed: %s%n", row, c.name(), error);
                        switch (row) {
                            case 1 -> row1.add(new Outcome<>(c.name(), null, error));
                            case 2 -> row2.add(new Outcome<>(c.name(), null, error));
                            default -> row3.add(new Outcome<>(c.name(), null, error));
                        }
                    }
                }
            }
            return new Report(settings, server, contenders, row1, row2, row3);
        }
    }

    private static String serverVersion(Connection admin) throws SQLException {
        try (Statement st = admin.createStatement(); ResultSet rs = st.executeQuery("SHOW server_version")) {
            rs.next();
            return "PostgreSQL " + rs.getString(1);
        }
    }

    Uncontended uncontended(Contender contender) throws Exception {
        String name = "bench-uncontended";
        Duration wait = settings.acquireTimeout();
        try (Contender.Client client = contender.newClient(0, settings.shortLease())) {
            long warmupEnd = System.nanoTime() + settings.warmup().toNanos();
            for (long i = 0; i < settings.maxOps() && System.nanoTime() - warmupEnd < 0; i++) {
                client.acquire(name, wait).release();
            }
            Histogram latency = new Histogram(HIGHEST_NANOS, 3);
            JdbcCounter.Snapshot before = JdbcCounter.snapshot();
            long start = System.nanoTime();
            long end = start + settings.measure().toNanos();
            long ops = 0;
            long now = start;
            while (ops < settings.maxOps() && now - end < 0) {
                client.acquire(name, wait).release();
                long done = System.nanoTime();
                latency.recordValue(Math.min(done - now, HIGHEST_NANOS));
                ops++;
                now = done;
            }
            double seconds = (now - start) / 1e9;
            JdbcCounter.Snapshot during = JdbcCounter.snapshot().minus(before);
            return new Uncontended(contender.name(), ops, seconds, latency, during.roundTrips(), during.nanosInCalls());
        }
    }

    Contended contended(Contender contender) throws Exception {
        String name = "bench-contended";
        int n = settings.clients();
        List<Contender.Client> clients = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) {
                clients.add(contender.newClient(i, settings.shortLease()));
            }
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger lastHolder = new AtomicInteger(-1);
            AtomicLong overlaps = new AtomicLong();
            AtomicLong measured = new AtomicLong();
            AtomicLong handoffs = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Histogram[] waits = new Histogram[n];
            CountDownLatch ready = new CountDownLatch(n);
            CountDownLatch go = new CountDownLatch(1);
            long[] window = new long[2]; // measured from, until; written before go
            List<Thread> threads = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int me = i;
                Contender.Client client = clients.get(i);
                waits[i] = new Histogram(HIGHEST_NANOS, 3);
                Thread t = new Thread(() -> {
                    ready.countDown();
                    try {
                        go.await();
                        long from = window[0];
                        long until = window[1];
                        while (failure.get() == null && measured.get() < settings.maxOps()) {
                            long asked = System.nanoTime();
                            if (asked - until >= 0) {
                                break;
                            }
                            Contender.Held held = client.acquire(name, settings.acquireTimeout());
                            long got = System.nanoTime();
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            int previous = lastHolder.getAndSet(me);
                            if (asked - from >= 0 && got - until < 0) {
                                waits[me].recordValue(Math.min(got - asked, HIGHEST_NANOS));
                                measured.incrementAndGet();
                                if (previous != me) {
                                    handoffs.incrementAndGet();
                                }
                            }
                            inside.decrementAndGet();
                            held.release();
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "bench-client-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
            ready.await();
            long from = System.nanoTime() + settings.warmup().toNanos();
            window[0] = from;
            window[1] = from + settings.measure().toNanos();
            go.countDown();
            sleepUntil(from);
            JdbcCounter.Snapshot before = JdbcCounter.snapshot();
            sleepUntil(window[1]);
            JdbcCounter.Snapshot after = JdbcCounter.snapshot();
            long joinDeadline = System.nanoTime() + settings.acquireTimeout().toNanos() + TimeUnit.SECONDS.toNanos(10);
            for (Thread t : threads) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinDeadline - System.nanoTime())));
                if (t.isAlive()) {
                    throw new IllegalStateException(t.getName() + " still running after the measurement");
                }
            }
            if (failure.get() != null) {
                throw new IllegalStateException("a client failed: " + failure.get(), failure.get());
            }
            Histogram all = new Histogram(HIGHEST_NANOS, 3);
            for (Histogram h : waits) {
                all.add(h);
            }
            double seconds = (window[1] - window[0]) / 1e9;
            return new Contended(contender.name(), n, measured.get(), handoffs.get(), seconds, all,
                    after.minus(before).roundTrips(), overlaps.get());
        } finally {
            for (Contender.Client c : clients) {
                c.close();
            }
        }
    }

    ManyHeld manyHeld(Contender contender, Connection admin) throws Exception {
        List<String> names = new ArrayList<>(settings.locks());
        for (int i = 0; i < settings.locks(); i++) {
            names.add("bench-many-" + i);
        }
        try (Contender.Client client = contender.newClient(0, settings.renewedLease())) {
            long t0 = System.nanoTime();
            try (Contender.Holding holding = client.holdAll(names)) {
                double takeSeconds = (System.nanoTime() - t0) / 1e9;
                Thread.sleep(settings.warmup().toMillis());

                Set<Integer> pids = JdbcCounter.openBackendPids();
                boolean serverCpuReadable = ServerCpu.available(pids);
                Map<Integer, Long> serverBefore = ServerCpu.read(pids);
                long clientBefore = processCpuNanos();
                JdbcCounter.Snapshot before = JdbcCounter.snapshot();
                long start = System.nanoTime();
                sleepUntil(start + settings.hold().toNanos());
                JdbcCounter.Snapshot during = JdbcCounter.snapshot().minus(before);
                long clientCpu = processCpuNanos() - clientBefore;
                Set<Integer> pidsAfter = new HashSet<>(pids);
                pidsAfter.addAll(JdbcCounter.openBackendPids());
                Long serverCpu = serverCpuReadable ? ServerCpu.spentNanos(serverBefore, ServerCpu.read(pidsAfter)) : null;
                double seconds = (System.nanoTime() - start) / 1e9;

                int heldAtEnd = contender.countHeld(admin, settings.renewedLease());
                return new ManyHeld(contender.name(), names.size(), takeSeconds, seconds, heldAtEnd, holding.renewalFailures(),
                        during.roundTrips(), during.nanosInCalls(), clientCpu, serverCpu);
            }
        }
    }

    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return 0;
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
