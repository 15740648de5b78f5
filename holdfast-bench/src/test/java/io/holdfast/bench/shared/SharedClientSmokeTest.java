package io.holdfast.bench.shared;

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
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the shared-client rows for every store and library with tiny settings against real servers and checks the
 * numbers are sane: acquisitions counted, never two holders at once, threads interleaved. Asserts no speed.
 */
class SharedClientSmokeTest {
    private static final SharedClientRunner.Settings TINY = new SharedClientRunner.Settings(List.of(1, 4), Duration.ofMillis(200),
            Duration.ofSeconds(1), 5_000, Duration.ofSeconds(10));
    private static final Stores.Options OPTIONS = new Stores.Options("jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
            Duration.ofMillis(10), 1);

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "redis", "zookeeper", "etcd", "memcached", "sqlite"})
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void everyLibraryHandsTheLockAroundItsThreadsWithoutOverlap(String storeName) throws Exception {
        List<String> progress = new ArrayList<>();
        try (RunningStore store = Stores.start(storeName, OPTIONS)) {
            List<SharedClientRunner.Row> rows = new SharedClientRunner(TINY).run(store.libraries(), line -> {
                progress.add(line);
                System.out.println(line);
            });
            int libraries = store.libraries().size();
            assertThat(store.libraries().get(0).name()).startsWith("Holdfast");
            assertThat(rows).as("progress: %s", progress).hasSize(2 * libraries);
            // Interleaved per thread count: every library at 1 thread, then every library at 4.
            for (int i = 0; i < rows.size(); i++) {
                assertThat(rows.get(i).threads()).isEqualTo(i < libraries ? 1 : 4);
                assertThat(rows.get(i).library()).isEqualTo(store.libraries().get(i % libraries).name());
            }
            for (SharedClientRunner.Row row : rows) {
                String what = row.library() + ", " + row.threads() + " threads";
                assertThat(row.error()).as(what).isNull();
                SharedClientRunner.Result r = row.result();
                assertThat(r.threads()).as(what).isEqualTo(row.threads());
                assertThat(r.acquisitions()).as(what).isPositive();
                assertThat(r.overlaps()).as(what).isZero();
                assertThat(row.failed()).as(what).isFalse();
                assertThat(r.waits().getTotalCount()).as(what).isEqualTo(r.acquisitions());
                assertThat(r.handoffs()).as(what).isBetween(0L, r.acquisitions());
                assertThat(r.fewest()).as(what).isBetween(0L, r.most());
                assertThat(r.most()).as(what).isBetween(r.acquisitions() / row.threads(), r.acquisitions());
                assertThat(r.seconds()).as(what).isPositive();
                if (row.threads() == 1) {
                    assertThat(r.handoffs()).as(what).isZero();
                    assertThat(r.fewest()).as(what).isEqualTo(r.acquisitions());
                }
            }
            String markdown = SharedClientReport.render(store, TINY, "test", "0 0 0", rows);
            assertThat(markdown).startsWith("### " + store.title() + ": N threads").doesNotContain("failed:");
            for (SharedLockLibrary library : store.libraries()) {
                assertThat(markdown.lines().filter(l -> l.contains("| " + library.name() + " |"))).as(library.name()).hasSize(2);
            }
        }
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLockerWithoutExclusionIsCaughtOverlapping() {
        // Every acquire "succeeds" at once: 4 threads are soon inside together, and the row must say so.
        SharedLockLibrary broken = library("no exclusion", () -> new Object());
        List<SharedClientRunner.Row> rows = new SharedClientRunner(new SharedClientRunner.Settings(List.of(4), Duration.ZERO,
                Duration.ofSeconds(1), 50_000_000, Duration.ofSeconds(1))).run(List.of(broken), s -> { });
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).error()).isNull();
        assertThat(rows.get(0).result().overlaps()).isPositive();
        assertThat(rows.get(0).failed()).isTrue();
    }

    @Test
    @Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aThreadStuckInAcquireFailsTheRowInsteadOfHangingIt() {
        // The shape of issue 10's deadlock: an acquire that never returns, whatever its wait.
        CountDownLatch never = new CountDownLatch(1);
        SharedLockLibrary stuck = library("stuck", () -> {
            never.await();
            return new Object();
        });
        List<SharedClientRunner.Row> rows = new SharedClientRunner(new SharedClientRunner.Settings(List.of(2), Duration.ZERO,
                Duration.ofMillis(200), 10, Duration.ofSeconds(1))).run(List.of(stuck), s -> { });
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).error()).contains("2 of 2 threads still inside acquire", "CountDownLatch.await");
        assertThat(rows.get(0).failed()).isTrue();
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void commandLinePrintsOneTablePerStoreAndWritesTheOutputFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("shared.md");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = SharedClientBench.run(new String[] {"--stores", "sqlite,memcached", "--threads", "1,2", "--seconds", "1", "--warmup", "0",
                "--output", file.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String stdout = out.toString(StandardCharsets.UTF_8);
        assertThat(status).as("stdout:%n%s%nstderr:%n%s", stdout, err).isZero();
        assertThat(stdout).contains("### SQLite: N threads", "### Memcached: N threads", "Load average at start".toLowerCase(),
                "- Command: `java -cp holdfast-bench/target/holdfast-bench.jar io.holdfast.bench.shared.SharedClientBench --stores sqlite,memcached")
                .doesNotContain("failed");
        assertThat(stdout.lines().filter(l -> l.startsWith("| 2 | "))).hasSize(3);
        assertThat(Files.readString(file)).startsWith("## N threads of one process sharing one client").contains(stdout.trim());
    }

    /** A test library whose every acquire runs {@code acquire}. */
    private static SharedLockLibrary library(String name, Acquire acquire) {
        return new SharedLockLibrary() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String howItIsUsed() {
                return "test";
            }

            @Override
            public Locker open() {
                return new Locker() {
                    @Override
                    public Object acquire(String lockName, Duration wait) throws Exception {
                        return acquire.get();
                    }

                    @Override
                    public void release(Object held) {
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        };
    }

    private interface Acquire {
        Object get() throws Exception;
    }
}
