package io.holdfast.bench;

import io.holdfast.Durations;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The benchmark's command line: on every store, the same shapes for Holdfast, the store's incumbents and its floor,
 * interleaved (every library in turn within each shape, never two at once), for several rounds; prints one Markdown
 * table set per store on stdout (progress on stderr). See holdfast-bench/README.md.
 *
 * <pre>java -jar holdfast-bench/target/holdfast-bench.jar</pre>
 */
@Command(name = "holdfast-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Holdfast vs the incumbent lock libraries vs each store's floor (a minimal lock), on every store.")
public final class BenchMain implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--stores", split = ",", description = "from postgresql,redis,zookeeper,etcd,memcached,sqlite (default: all)")
    List<String> stores = Stores.ALL;

    @Option(names = "--shapes", split = ",", description = "from uncontended,own-names,one-name,clients,many-held,rw,semaphore,multi,leader (default: all)")
    List<String> shapes = Shape.names();

    @Option(names = "--rounds", description = "times every shape runs for every library; the tables show medians (default: ${DEFAULT-VALUE})")
    int rounds = 3;

    @Option(names = "--seconds", description = "measured seconds per library, shape and round (default: ${DEFAULT-VALUE})")
    double seconds = 3;

    @Option(names = "--warmup", description = "warm-up seconds before each measurement (default: ${DEFAULT-VALUE})")
    double warmup = 1;

    @Option(names = "--own-names", description = "threads of shape 2, one client, each on its own name (default: ${DEFAULT-VALUE})")
    int ownNames = 8;

    @Option(names = "--threads", split = ",", description = "thread counts of shape 3, one client on one name (default: 8,32)")
    List<Integer> threads = List.of(8, 32);

    @Option(names = "--clients", split = ",", description = "client counts of shape 4, separate clients on one name (default: 8)")
    List<Integer> clients = List.of(8);

    @Option(names = "--locks", description = "locks held in shape 5 (default: ${DEFAULT-VALUE})")
    int locks = 1000;

    @Option(names = "--lease", description = "lease of the holds in shape 5, renewed every lease/3 (default: ${DEFAULT-VALUE})")
    String lease = "3s";

    @Option(names = "--recipe-threads", description = "threads of one client in the rw, semaphore and multi shapes (default: ${DEFAULT-VALUE})")
    int recipeThreads = 8;

    @Option(names = "--candidates", description = "candidates, each its own client, of the leader shape (default: ${DEFAULT-VALUE})")
    int candidates = 4;

    @Option(names = "--recipe-seconds", description = "measured seconds per library and round in the rw, semaphore, multi and leader shapes (default: ${DEFAULT-VALUE})")
    double recipeSeconds = 2;

    @Option(names = "--max-acquisitions", description = "a measurement also ends after this many acquisitions (default: ${DEFAULT-VALUE})")
    long maxAcquisitions = 1_000_000;

    @Option(names = "--wait", description = "bound of each acquire's wait (default: ${DEFAULT-VALUE})")
    String waitBound = "10s";

    @Option(names = "--url", description = "PostgreSQL database (default: ${DEFAULT-VALUE})")
    String url = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @Option(names = "--poll", description = "retry interval of ShedLock and the floors, and Spring JdbcLockRegistry's idleBetweenTries (default: ${DEFAULT-VALUE})")
    String poll = "10ms";

    @Option(names = "--etcd-members", description = "members of the etcd cluster the benchmark starts (default: ${DEFAULT-VALUE})")
    int etcdMembers = 1;

    @Option(names = "--output", description = "also write the Markdown here")
    Path output;

    private String[] args = new String[0];
    private PrintStream out = System.out;
    private PrintStream progress = System.err;

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        java.util.logging.Logger.getLogger("io.grpc").setLevel(java.util.logging.Level.WARNING);
        System.exit(run(args, System.out, System.err));
    }

    /** Parses {@code args} and runs; the exit status: 0 when every row ran with no overlap, 1 otherwise, 2 on bad arguments. */
    static int run(String[] args, PrintStream out, PrintStream progress) {
        BenchMain bench = new BenchMain();
        bench.args = args.clone();
        bench.out = out;
        bench.progress = progress;
        CommandLine cl = new CommandLine(bench);
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(progress, true));
        return cl.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        RunSettings settings;
        try {
            for (String s : stores) {
                if (!Stores.ALL.contains(s.toLowerCase(Locale.ROOT))) {
                    throw new IllegalArgumentException("stores are " + Stores.ALL + "; got " + s);
                }
            }
            settings = new RunSettings(shapes.stream().map(Shape::parse).toList(), ownNames, threads, clients, locks, Durations.parse(lease),
                    recipeThreads, candidates, rounds, Duration.ofMillis(Math.round(warmup * 1000)), Duration.ofMillis(Math.round(seconds * 1000)),
                    Duration.ofMillis(Math.round(recipeSeconds * 1000)), maxAcquisitions, Durations.parse(waitBound));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        Runner runner = new Runner(settings);
        Stores.Options options = new Stores.Options(url, Durations.parse(poll), etcdMembers);
        String commandLine = ("java -jar holdfast-bench/target/holdfast-bench.jar " + String.join(" ", args)).trim();
        StringBuilder md = new StringBuilder("## Every store: Holdfast, the incumbents and the floor\n\n");
        boolean allGood = true;
        long started = System.nanoTime();
        for (String name : stores) {
            String load = Report.loadAverage();
            String startedAt = Report.now();
            progress.println("starting " + name);
            String table;
            try (RunningStore store = Stores.start(name.toLowerCase(Locale.ROOT), options)) {
                List<Runner.Row> rows = runner.run(store, progress::println);
                table = Report.render(store, settings, commandLine, load, startedAt, rows);
                allGood &= rows.stream().noneMatch(Runner.Row::failed);
            } catch (Exception e) {
                table = "### " + name + ": failed to start or stop: " + e + "\n\n";
                allGood = false;
            }
            out.print(table);
            out.flush();
            md.append(table);
        }
        progress.printf(Locale.ROOT, "took %.0f s%n", (System.nanoTime() - started) / 1e9);
        if (output != null) {
            Files.writeString(output, md.toString(), StandardCharsets.UTF_8);
        }
        return allGood ? 0 : 1;
    }
}
