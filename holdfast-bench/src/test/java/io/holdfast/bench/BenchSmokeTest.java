package io.holdfast.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every shape for every store and library (floors included) with tiny settings against real servers and checks
 * the numbers are sane: acquisitions counted, never two holders at once, threads and rounds interleaved, server
 * counters read, every lock of shape 5 still held after its lease through renewal. Asserts no speed.
 */
class BenchSmokeTest {
    private static final RunSettings TINY = new RunSettings(List.of(Shape.values()), 3, List.of(4), List.of(3), 20, Duration.ofMillis(1500),
            4, 3, 1, Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofMillis(500), 5_000, Duration.ofSeconds(10));
    private static final Stores.Options OPTIONS = new Stores.Options("jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
            Duration.ofMillis(10), 1);

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "redis", "zookeeper", "etcd", "memcached", "sqlite"})
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void everyShapeRunsForEveryLibraryWithoutOverlap(String storeName) throws Exception {
        List<String> progress = new ArrayList<>();
        try (RunningStore store = Stores.start(storeName, OPTIONS)) {
            List<Runner.Row> rows = new Runner(TINY).run(store, line -> {
                progress.add(line);
                System.out.println(line);
            });
            List<LockLibrary> libraries = store.libraries();
            assertThat(libraries.get(0).name()).startsWith("Holdfast");
            assertThat(libraries.get(libraries.size() - 1).name()).contains("floor");
            long renewing = libraries.stream().filter(l -> l.renewal() != LockLibrary.Renewal.NONE).count();
            int mutexRows = 4 * libraries.size() + (store.manyHeld() ? (int) renewing : 0);
            assertThat(rows).as("progress: %s", progress).hasSize(mutexRows + store.recipes().size());
            // Interleaved: within each shape every library in turn, in the store's order.
            for (int i = 0; i < 4 * libraries.size(); i++) {
                assertThat(rows.get(i).c().shape()).isEqualTo(TINY.cases().get(i / libraries.size()).shape());
                assertThat(rows.get(i).library()).isEqualTo(libraries.get(i % libraries.size()).name());
            }
            // Then each recipe shape, Holdfast first and every incumbent that offers the recipe on this store.
            List<String> recipeOrder = java.util.Arrays.stream(Shape.values()).filter(Shape::recipe)
                    .flatMap(shape -> store.recipes(shape).stream()).map(r -> r.shape().option + " " + r.name()).toList();
            assertThat(rows.subList(mutexRows, rows.size())).extracting(r -> r.c().shape().option + " " + r.library()).isEqualTo(recipeOrder);
            for (Shape shape : Shape.values()) {
                if (shape.recipe()) {
                    assertThat(store.recipes(shape)).as(shape.option).isNotEmpty().first().satisfies(r -> assertThat(r.name()).startsWith("Holdfast"));
                }
            }
            for (Runner.Row row : rows) {
                String what = row.library() + ", " + row.c();
                assertThat(row.error()).as(what).isNull();
                assertThat(row.failed()).as(what).isFalse();
                Map<String, Double> v = byHeader(row);
                if (row.c().shape() == Shape.MANY_HELD) {
                    assertThat(v.get("held at end")).as(what).isEqualTo(20.0);
                    assertThat(v.get("renewal failures")).as(what).isZero();
                } else if (row.c().shape() == Shape.LEADER) {
                    assertThat(v.get("terms/s")).as(what + ": terms counted").isPositive();
                    // Not asserted positive: without a queue (Memcached) the leader that resigns may win again every time.
                    assertThat(v.get("failovers/s")).as(what).isBetween(0.0, v.get("terms/s"));
                    assertThat(v.get(Runner.OVERLAPS)).as(what + ": two leaders at once").isZero();
                    assertThat(v.get("timed-out waits")).as(what).isZero();
                } else {
                    assertThat(v.getOrDefault("acquisitions/s", v.get("ops/s"))).as(what + ": acquisitions counted").isPositive();
                    assertThat(v.getOrDefault(Runner.OVERLAPS, 0.0)).as(what).isZero();
                    assertThat(v.getOrDefault("timed-out waits", 0.0)).as(what).isZero();
                }
                if (row.c().shape() == Shape.READ_WRITE) {
                    assertThat(v.get("most readers at once")).as(what).isBetween(1.0, 4.0);
                    assertThat(v.get("read wait p50 ms")).as(what).isPositive();
                }
                if (row.c().shape() == Shape.SEMAPHORE) {
                    assertThat(v.get("most inside at once")).as(what).isBetween(1.0, (double) RecipeMeasurement.PERMITS);
                }
                if (row.c().shape() == Shape.ONE_NAME) {
                    assertThat(v.get("fewest per thread")).as(what).isBetween(0.0, v.get("most per thread"));
                    assertThat(v.get("hand-offs/s")).as(what).isBetween(0.0, v.get("acquisitions/s"));
                }
                if (row.c().shape() == Shape.CLIENTS) {
                    // Not asserted positive: without notifications (Memcached) a client that releases usually re-takes the lock.
                    assertThat(v.get("hand-offs/s")).as(what).isBetween(0.0, v.get("acquisitions/s"));
                }
                for (String counter : row.c().shape() == Shape.MANY_HELD ? List.<String>of() : store.meter().names()) {
                    // Every operation reaches the server: its counters moved (CPU may round to 0 over a short window).
                    Double perUnit = v.entrySet().stream().filter(e -> e.getKey().startsWith(counter + " / ")).map(Map.Entry::getValue).findFirst().orElseThrow();
                    assertThat(perUnit).as(what + ": " + counter).isGreaterThanOrEqualTo(counter.contains("µs") ? 0.0 : 0.01);
                }
            }
            String markdown = Report.render(store, TINY, "test", "0 0 0", "now", rows);
            assertThat(markdown).startsWith("### " + store.title()).doesNotContain("failed");
            for (LockLibrary library : libraries) {
                assertThat(markdown.lines().filter(l -> l.contains("| " + library.name() + " |"))).as(library.name())
                        .hasSize(store.manyHeld() && library.renewal() != LockLibrary.Renewal.NONE ? 5 : 4);
            }
            for (RecipeLibrary recipe : store.recipes()) {
                assertThat(markdown.lines().filter(l -> l.contains("| " + recipe.name() + " |"))).as(recipe.name()).hasSize(1);
                assertThat(markdown).contains("- " + recipe.name() + ": " + recipe.howItIsUsed());
            }
        }
    }

    private static Map<String, Double> byHeader(Runner.Row row) {
        Map<String, Double> m = new java.util.LinkedHashMap<>();
        row.values().forEach((c, v) -> m.put(c.header(), v));
        return m;
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void roundsRepeatEveryShapeInTurnAndTheTableShowsTheirMedian() {
        // A lock in this JVM: three rounds of two shapes for two libraries, in order round > shape > library, each
        // round starting with the next library (no library is always first on a fresh server).
        RunSettings settings = new RunSettings(List.of(Shape.UNCONTENDED, Shape.ONE_NAME), 2, List.of(2), List.of(2), 1, Duration.ofSeconds(1),
                2, 2, 3, Duration.ZERO, Duration.ofMillis(100), Duration.ofMillis(100), 1_000_000, Duration.ofSeconds(1));
        RunningStore store = new RunningStore("Local", "this JVM", List.of(local("first"), local("second")), List.of(), ServerMeter.NONE, false,
                () -> { });
        List<Runner.Row> rows = new Runner(settings).run(store, s -> { });
        assertThat(rows).extracting(r -> r.round() + " " + r.c().shape().option + " " + r.library()).containsExactly(
                "1 uncontended first", "1 uncontended second", "1 one-name first", "1 one-name second",
                "2 uncontended second", "2 uncontended first", "2 one-name second", "2 one-name first",
                "3 uncontended first", "3 uncontended second", "3 one-name first", "3 one-name second");
        String markdown = Report.render(store, settings, "test", "0 0 0", "now", rows);
        double[] firstRates = rows.stream().filter(r -> r.c().shape() == Shape.UNCONTENDED && r.library().equals("first"))
                .mapToDouble(r -> r.values().values().iterator().next()).toArray();
        assertThat(markdown).contains("| first | " + Report.num(Column.median(firstRates), 0) + " ("
                + Report.num(java.util.Arrays.stream(firstRates).min().orElseThrow(), 0) + "–");
    }

    @Test
    void columnsCombineRoundsAsTheyShould() {
        double[] rounds = {5, 1, 3, 100};
        assertThat(Column.median("x", 0).combine(rounds)).isEqualTo(4);
        assertThat(Column.median("x", 0).combine(new double[] {5, 1, 3})).isEqualTo(3);
        assertThat(Column.sum("overlaps").combine(rounds)).isEqualTo(109);
        assertThat(Column.min("held").combine(rounds)).isEqualTo(1);
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLockerWithoutExclusionIsCaughtOverlapping() {
        // Every acquire "succeeds" at once: 4 threads are soon inside together, and the row must say so.
        LockLibrary broken = library("no exclusion", (name, wait) -> new Object());
        RunSettings settings = new RunSettings(List.of(Shape.ONE_NAME), 1, List.of(4), List.of(1), 1, Duration.ofSeconds(1), 1, 2, 1,
                Duration.ZERO, Duration.ofSeconds(1), Duration.ofSeconds(1), 50_000_000, Duration.ofSeconds(1));
        List<Runner.Row> rows = new Runner(settings).run(storeOf(broken), s -> { });
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).error()).isNull();
        assertThat(byHeader(rows.get(0)).get(Runner.OVERLAPS)).isPositive();
        assertThat(rows.get(0).failed()).isTrue();
    }

    @Test
    @Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aThreadStuckInAcquireFailsTheRowInsteadOfHangingIt() {
        // The shape of issue 10's deadlock: an acquire that never returns, whatever its wait.
        CountDownLatch never = new CountDownLatch(1);
        LockLibrary stuck = library("stuck", (name, wait) -> {
            never.await();
            return new Object();
        });
        RunSettings settings = new RunSettings(List.of(Shape.ONE_NAME), 1, List.of(2), List.of(1), 1, Duration.ofSeconds(1), 1, 2, 1,
                Duration.ZERO, Duration.ofMillis(200), Duration.ofMillis(200), 10, Duration.ofSeconds(1));
        List<Runner.Row> rows = new Runner(settings).run(storeOf(stuck), s -> { });
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).error()).contains("2 of 2 threads still inside acquire", "CountDownLatch.await");
        assertThat(rows.get(0).failed()).isTrue();
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void commandLinePrintsOneTableSetPerStoreAndWritesTheOutputFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bench.md");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BenchMain.run(new String[] {"--stores", "sqlite,memcached", "--shapes", "uncontended,one-name", "--threads", "2",
                "--rounds", "1", "--seconds", "0.3", "--warmup", "0", "--output", file.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String stdout = out.toString(StandardCharsets.UTF_8);
        assertThat(status).as("stdout:%n%s%nstderr:%n%s", stdout, err).isZero();
        assertThat(stdout).contains("### SQLite", "### Memcached", "load average at start", "#### 1. Uncontended", "#### 3. Threads of one client",
                "- Command: `java -jar holdfast-bench/target/holdfast-bench.jar --stores sqlite,memcached", "Memcached commands / op")
                .doesNotContain("failed");
        assertThat(stdout.lines().filter(l -> l.startsWith("| 2 | "))).hasSize(4);
        assertThat(Files.readString(file)).startsWith("## Every store").contains(stdout.trim());
    }

    @Test
    void badArgumentsAreRefusedSayingWhatIsAllowed() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BenchMain.run(new String[] {"--shapes", "sideways"}, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("shapes are [uncontended, own-names, one-name, clients, many-held, rw, semaphore, multi, leader]; got sideways");
    }

    @Test
    void springLockTableComesFromTheDdlInItsJar() {
        assertThat(JdbcLibraries.springLockTableDdl()).startsWith("CREATE TABLE IF NOT EXISTS BENCH_INT_LOCK")
                .contains("BENCH_INT_LOCK_PK", "CLIENT_ID", "CREATED_DATE").doesNotContain("INT_CHANNEL_MESSAGE");
    }

    // ------------------------------------------------------------------------------------------- test libraries

    private static RunningStore storeOf(LockLibrary library) {
        return new RunningStore("Test", "none", List.of(library), List.of(), ServerMeter.NONE, false, () -> { });
    }

    /** A lock of this JVM: one java.util.concurrent lock per name, shared by every client of the library. */
    private static LockLibrary local(String name) {
        Map<String, java.util.concurrent.locks.ReentrantLock> locks = new java.util.concurrent.ConcurrentHashMap<>();
        return library(name, (lockName, wait) -> {
            java.util.concurrent.locks.ReentrantLock lock = locks.computeIfAbsent(lockName, n -> new java.util.concurrent.locks.ReentrantLock());
            return lock.tryLock(wait.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS) ? lock : null;
        });
    }

    /** A test library whose every acquire runs {@code acquire}, and whose release unlocks what it returned if that is a lock. */
    private static LockLibrary library(String name, Acquire acquire) {
        return new LockLibrary() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String howItIsUsed() {
                return "test";
            }

            @Override
            public Locker open(Duration lease) {
                return new Locker() {
                    @Override
                    public Object acquire(String lockName, Duration wait) throws Exception {
                        return acquire.get(lockName, wait);
                    }

                    @Override
                    public void release(Object held) {
                        if (held instanceof java.util.concurrent.locks.Lock lock) {
                            lock.unlock();
                        }
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        };
    }

    private interface Acquire {
        Object get(String lockName, Duration wait) throws Exception;
    }
}
