package io.holdfast.bench.shared;

import io.holdfast.Durations;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The shape "N threads of one process sharing one client, one lock name" on every store, Holdfast beside the
 * incumbents used the same way (one {@code RedissonClient}, one {@code CuratorFramework}, one jetcd {@code Client},
 * one ShedLock provider, one Spring registry). Starts each store's server as the per-store benchmarks do, runs
 * {@link SharedClientRunner} on it, prints one Markdown table per store on stdout (progress on stderr).
 *
 * <pre>java -cp holdfast-bench/target/holdfast-bench.jar io.holdfast.bench.shared.SharedClientBench</pre>
 */
@Command(name = "shared-client-bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "N threads sharing one client on one lock name: Holdfast vs the incumbents, on every store.")
public final class SharedClientBench implements Callable<Integer> {

    @Option(names = "--stores", split = ",", description = "from postgresql,redis,zookeeper,etcd,memcached,sqlite (default: all)")
    List<String> stores = Stores.ALL;

    @Option(names = "--threads", split = ",", description = "thread counts, each sharing one client (default: 1,8,32)")
    List<Integer> threads = List.of(1, 8, 32);

    @Option(names = "--seconds", description = "measured seconds per library and thread count (default: ${DEFAULT-VALUE})")
    int seconds = 5;

    @Option(names = "--warmup", description = "warm-up seconds before each measurement (default: ${DEFAULT-VALUE})")
    int warmup = 2;

    @Option(names = "--max-acquisitions", description = "a measurement also ends after this many acquisitions (default: ${DEFAULT-VALUE})")
    long maxAcquisitions = 1_000_000;

    @Option(names = "--wait", description = "bound of each acquire's wait (default: ${DEFAULT-VALUE})")
    String waitBound = "10s";

    @Option(names = "--url", description = "PostgreSQL database (default: ${DEFAULT-VALUE})")
    String url = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @Option(names = "--poll", description = "retry interval of ShedLock and the naive Memcached lock, and Spring JdbcLockRegistry's idleBetweenTries (default: ${DEFAULT-VALUE})")
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
        SharedClientBench bench = new SharedClientBench();
        bench.args = args.clone();
        bench.out = out;
        bench.progress = progress;
        return new CommandLine(bench).execute(args);
    }

    @Override
    public Integer call() throws Exception {
        for (String s : stores) {
            if (!Stores.ALL.contains(s.toLowerCase(Locale.ROOT))) {
                throw new CommandLine.ParameterException(new CommandLine(this), "stores are " + Stores.ALL + "; got " + s);
            }
        }
        SharedClientRunner runner = new SharedClientRunner(new SharedClientRunner.Settings(threads, Duration.ofSeconds(warmup),
                Duration.ofSeconds(seconds), maxAcquisitions, Durations.parse(waitBound)));
        Stores.Options options = new Stores.Options(url, Durations.parse(poll), etcdMembers);
        String commandLine = ("java -cp holdfast-bench/target/holdfast-bench.jar " + SharedClientBench.class.getName() + " "
                + String.join(" ", args)).trim();
        StringBuilder md = new StringBuilder("## N threads of one process sharing one client, one lock name\n\n");
        boolean allGood = true;
        long started = System.nanoTime();
        for (String name : stores) {
            String load = SharedClientReport.loadAverage();
            progress.println("starting " + name);
            try (RunningStore store = Stores.start(name.toLowerCase(Locale.ROOT), options)) {
                List<SharedClientRunner.Row> rows = runner.run(store.libraries(), progress::println);
                String table = SharedClientReport.render(store, runner.settings(), commandLine, load, rows);
                out.print(table);
                out.flush();
                md.append(table);
                allGood &= rows.stream().noneMatch(SharedClientRunner.Row::failed);
            } catch (Exception e) {
                String failed = "### " + name + ": failed to start or stop: " + e + "\n\n";
                out.print(failed);
                md.append(failed);
                allGood = false;
            }
        }
        progress.printf(Locale.ROOT, "took %.0f s%n", (System.nanoTime() - started) / 1e9);
        if (output != null) {
            Files.writeString(output, md.toString(), StandardCharsets.UTF_8);
        }
        return allGood ? 0 : 1;
    }
}
