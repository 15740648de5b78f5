package io.holdfast.bench;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs every row of the benchmark for every library for a handful of iterations against the real
 * PostgreSQL at 127.0.0.1:5432 and checks the results are sane. No speed is asserted: speed is what
 * the benchmark reports, not what the tests check.
 */
class BenchSmokeTest {
    private static final int MAX_OPS = 20;
    private static final int CLIENTS = 3;
    private static final int LOCKS = 20;

    private static Benchmark.Report report;
    private static String progress;

    @BeforeAll
    static void runTinyBenchmark() throws Exception {
        Settings settings = new Settings(Settings.DEFAULT_URL, List.of(1, 2, 3), Settings.ALL_LIBRARIES, Duration.ZERO,
                Duration.ofMillis(300), MAX_OPS, CLIENTS, Duration.ofSeconds(30), LOCKS, Duration.ofSeconds(2),
                Duration.ofMillis(1500), Duration.ofMillis(10), Duration.ofSeconds(30));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            report = new Benchmark(settings).run(ps);
        }
        progress = out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void everyRowRanForEveryLibraryWithoutFailure() {
        assertThat(report.anyFailed()).as("progress:%n%s", progress).isFalse();
        assertThat(report.uncontended()).hasSize(3);
        assertThat(report.contended()).hasSize(3);
        assertThat(report.manyHeld()).hasSize(3);
        assertThat(report.uncontended()).extracting(Benchmark.Outcome::library)
                .anySatisfy(l -> assertThat(l).startsWith("Holdfast"))
                .anySatisfy(l -> assertThat(l).startsWith("ShedLock"))
                .anySatisfy(l -> assertThat(l).startsWith("Spring Integration"));
    }

    @Test
    void uncontendedRowCountsOperationsAndTheirRoundTrips() {
        for (Benchmark.Outcome<Benchmark.Uncontended> o : report.uncontended()) {
            Benchmark.Uncontended r = o.result();
            assertThat(r.ops()).as(o.library()).isBetween(1L, (long) MAX_OPS);
            assertThat(r.latency().getTotalCount()).as(o.library()).isEqualTo(r.ops());
            // An acquire and a release each reach the server at least once.
            assertThat(r.roundTrips()).as(o.library()).isGreaterThanOrEqualTo(2 * r.ops());
            assertThat(r.opsPerSecond()).as(o.library()).isPositive();
            assertThat(r.nanosInJdbc()).as(o.library()).isPositive();
        }
    }

    @Test
    void contendedRowHandsTheLockOverWithoutOverlap() {
        for (Benchmark.Outcome<Benchmark.Contended> o : report.contended()) {
            Benchmark.Contended r = o.result();
            assertThat(r.clients()).isEqualTo(CLIENTS);
            assertThat(r.acquisitions()).as(o.library()).isPositive();
            assertThat(r.waitTime().getTotalCount()).as(o.library()).isEqualTo(r.acquisitions());
            assertThat(r.handoffs()).as(o.library()).isBetween(0L, r.acquisitions());
            assertThat(r.overlaps()).as(o.library()).isZero();
            assertThat(r.roundTrips()).as(o.library()).isPositive();
        }
    }

    @Test
    void manyLocksRowKeepsEveryLockAliveThroughRenewal() {
        for (Benchmark.Outcome<Benchmark.ManyHeld> o : report.manyHeld()) {
            Benchmark.ManyHeld r = o.result();
            // Counted at least 2 s after the last acquire: without renewal every 1.5 s lease would have lapsed.
            assertThat(r.heldAtEnd()).as(o.library()).isEqualTo(LOCKS);
            assertThat(r.renewalFailures()).as(o.library()).isZero();
            assertThat(r.roundTrips()).as(o.library()).isPositive();
            assertThat(r.nanosInJdbc()).as(o.library()).isPositive();
            assertThat(r.seconds()).as(o.library()).isGreaterThanOrEqualTo(2.0);
        }
    }

    @Test
    void everyLockIsReleasedAfterTheRun() throws Exception {
        try (Connection c = DriverManager.getConnection(Settings.DEFAULT_URL)) {
            for (Contender contender : report.contenders().values()) {
                assertThat(contender.countHeld(c, Duration.ofMillis(1500))).as(contender.name()).isZero();
            }
        }
    }

    @Test
    void markdownHasATableRowPerLibraryAndNoFailure() {
        String markdown = MarkdownReport.render(report, BenchMain.machine());
        assertThat(markdown).contains("### 1. Uncontended", "### 2. Contended hand-off (3 clients", "### 3. Many locks held (20 locks")
                .doesNotContain("failed:");
        assertThat(markdown.lines().filter(l -> l.startsWith("| Holdfast"))).hasSize(3);
        assertThat(markdown.lines().filter(l -> l.startsWith("| ShedLock"))).hasSize(3);
        assertThat(markdown.lines().filter(l -> l.startsWith("| Spring Integration"))).hasSize(3);
    }

    @Test
    void counterCountsEachStatementAndCommitOnce() throws Exception {
        JdbcCounter.install();
        try (Connection c = DriverManager.getConnection(Settings.DEFAULT_URL)) {
            JdbcCounter.Snapshot before = JdbcCounter.snapshot();
            try (Statement st = c.createStatement()) {
                st.execute("SELECT 1");
                try (ResultSet rs = st.executeQuery("SELECT 2")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).isEqualTo(2);
                }
            }
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.executeUpdate("CREATE TEMP TABLE bench_counter_check (x int)");
            }
            c.commit();
            assertThat(JdbcCounter.snapshot().minus(before).roundTrips()).isEqualTo(4);
            assertThat(JdbcCounter.openBackendPids()).isNotEmpty();
        }
    }

    @Test
    void springLockTableComesFromTheDdlInItsJar() {
        String ddl = SpringIntegrationContender.lockTableDdl();
        assertThat(ddl).startsWith("CREATE TABLE IF NOT EXISTS BENCH_INT_LOCK").contains("BENCH_INT_LOCK_PK", "CLIENT_ID", "CREATED_DATE")
                .doesNotContain("INT_CHANNEL_MESSAGE");
    }
}
