package io.holdfast.bench;

import io.holdfast.Durations;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The benchmark's command line: runs Holdfast, ShedLock and Spring Integration's JdbcLockRegistry side
 * by side on one PostgreSQL database and prints Markdown tables. See holdfast-bench/README.md.
 */
@Command(name = "holdfast-bench", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = BenchMain.Versions.class,
        description = "Holdfast vs ShedLock vs Spring Integration JdbcLockRegistry on one PostgreSQL database.")
public final class BenchMain implements Callable<Integer> {
    private static final Settings DEFAULTS = Settings.defaults();

    @Spec
    CommandSpec spec;

    @Option(names = "--url", description = "PostgreSQL JDBC URL every library uses (default: ${DEFAULT-VALUE})")
    String url = DEFAULTS.jdbcUrl();

    @Option(names = "--rows", split = ",", description = "rows to run: 1 uncontended, 2 contended hand-off, 3 many locks held (default: 1,2,3)")
    List<Integer> rows = DEFAULTS.rows();

    @Option(names = "--libraries", split = ",", description = "libraries, in order, from holdfast,shedlock,spring (default: all)")
    List<String> libraries = DEFAULTS.libraries();

    @Option(names = "--seconds", description = "measured seconds per library in rows 1 and 2 (default: ${DEFAULT-VALUE})")
    double seconds = DEFAULTS.measure().toMillis() / 1000.0;

    @Option(names = "--warmup", description = "warm-up before each measurement, e.g. 2s (default: 2s)", converter = DurationConverter.class)
    Duration warmup = DEFAULTS.warmup();

    @Option(names = "--max-ops", description = "at most this many measured operations per library in rows 1 and 2 (default: ${DEFAULT-VALUE})")
    long maxOps = DEFAULTS.maxOps();

    @Option(names = "--clients", description = "client threads in row 2, each its own client instance (default: ${DEFAULT-VALUE})")
    int clients = DEFAULTS.clients();

    @Option(names = "--locks", description = "locks held in row 3 (default: ${DEFAULT-VALUE})")
    int locks = DEFAULTS.locks();

    @Option(names = "--hold", description = "measured holding time in row 3 (default: 10s)", converter = DurationConverter.class)
    Duration hold = DEFAULTS.hold();

    @Option(names = "--lease", description = "lease of the holds in row 3, renewed every lease/3 (default: 3s)", converter = DurationConverter.class)
    Duration lease = DEFAULTS.renewedLease();

    @Option(names = "--poll", description = "retry interval of the incumbents' waits: ShedLock's retry loop and Spring's idleBetweenTries (default: 10ms)",
            converter = DurationConverter.class)
    Duration poll = DEFAULTS.poll();

    @Option(names = "--output", description = "also write the Markdown to this file")
    Path output;

    /** Runs the benchmark; exits 0 when every row of every library ran, 1 if any failed, 2 on bad options. */
    public static void main(String[] args) {
        // Pool start/stop chatter would bury the progress lines; warnings still show.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.exit(new CommandLine(new BenchMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Settings settings;
        try {
            settings = new Settings(url, rows, libraries.stream().map(l -> l.toLowerCase(Locale.ROOT)).toList(), warmup,
                    Duration.ofMillis(Math.round(seconds * 1000)), maxOps, clients, DEFAULTS.shortLease(), locks, hold, lease, poll,
                    DEFAULTS.acquireTimeout());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        long start = System.nanoTime();
        Benchmark.Report report = new Benchmark(settings).run(System.err);
        String markdown = MarkdownReport.render(report, machine());
        System.out.println(markdown);
        System.err.printf("benchmark took %.0f s%n", (System.nanoTime() - start) / 1e9);
        if (output != null) {
            Path parent = output.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(output, markdown, StandardCharsets.UTF_8);
        }
        return report.anyFailed() ? 1 : 0;
    }

    static String machine() {
        return Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name") + " "
                + System.getProperty("os.arch") + ", Java " + System.getProperty("java.version") + " ("
                + System.getProperty("java.vm.name") + ")";
    }

    /** The benchmarked versions, for {@code --version}. */
    static final class Versions implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"holdfast-bench " + Contender.version("holdfast"), "ShedLock " + Contender.version("shedlock"),
                    "Spring Integration " + Contender.version("spring-integration")};
        }
    }

    /** Reads durations as Holdfast does: {@code 500ms}, {@code 10s}, {@code 5m}, or ISO-8601. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return Durations.parse(value);
        }
    }
}
