package io.holdfast.cli;

import io.holdfast.Durations;
import io.holdfast.Holdfast;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code holdfast demo}: the seeds' flash sale run for real by buyer processes, in three phases: without
 * a lock (oversell), with a Holdfast lock (exact), and with a holder frozen past its lease (only the
 * fencing token keeps its stale write out). Prints what happened; exits 0 if the lock and the fence
 * did their jobs, 1 if not.
 */
@Command(name = "demo", sortOptions = false,
        description = {"Runs the seed articles' flash sale (stock 5, two buyers read 5, both write 4) with real buyer "
                + "processes: without a lock, with a Holdfast lock, and with a frozen lock holder that only the fencing "
                + "token stops. Three phases:",
                "  1. no lock: each buyer reads the stock, thinks, writes stock-1; sales are lost or oversold;",
                "  2. a Holdfast lock around read-think-write: exactly the stock is sold;",
                "  3. a buyer takes the lock, reads, and is frozen (SIGSTOP) past its lease; the others take the lock "
                        + "and sell; the frozen buyer wakes and writes with its old fencing token, and the fenced "
                        + "UPDATE ... WHERE fence < token rejects it.",
                "The stock table lives in the database of --uri if it is a jdbc: URL, else in a SQLite file in a "
                        + "temporary directory. Exits 0 if phases 2 and 3 came out right, 1 if not."})
final class DemoCommand implements Callable<Integer> {
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration DONE_TIMEOUT = Duration.ofMinutes(3);
    private static final int PHASES = 3;

    @Spec
    CommandSpec spec;
    @Option(names = "--uri", paramLabel = "URI",
            description = "Lock store (any Holdfast URI). Default: a SQLite file in the demo's temporary directory.")
    String uri;
    @Option(names = "--workers", paramLabel = "N", defaultValue = "4", description = "Buyer processes (2 to 32; default: ${DEFAULT-VALUE}).")
    int workers;
    @Option(names = "--stock", paramLabel = "N", defaultValue = "5", description = "Items in stock (1 to 1000; default: ${DEFAULT-VALUE}).")
    int stock;
    @Option(names = "--think", paramLabel = "DURATION", defaultValue = "50ms", converter = DurationConverter.class,
            description = "How long a buyer pauses between reading and writing the stock (default: ${DEFAULT-VALUE}).")
    Duration think;
    @Option(names = "--json", description = "Print the results as one JSON object (progress still goes to stderr).")
    boolean json;
    @Option(names = "--keep", description = "Keep the temporary directory (SQLite files, worker logs).")
    boolean keep;
    @Option(names = "--stale-lease", hidden = true, defaultValue = "2s", converter = DurationConverter.class)
    Duration staleLease;

    private final List<Worker> running = new CopyOnWriteArrayList<>();
    private PrintWriter err;
    private Path dir;
    private String runId;
    private String locksUri;
    private String shopUrl;
    private String lockName;

    @Override
    public Integer call() throws Exception {
        validate();
        err = spec.commandLine().getErr();
        PrintWriter out = spec.commandLine().getOut();
        dir = Files.createTempDirectory("holdfast-demo-");
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        runId = HexFormat.of().formatHex(random);
        locksUri = uri != null ? uri : "sqlite:" + dir.resolve("locks.db");
        String jdbc = DemoShop.jdbcUrlOf(locksUri);
        shopUrl = jdbc != null ? jdbc : "jdbc:sqlite:" + dir.resolve("shop.db");
        lockName = "holdfast-demo/" + runId + "/stock";
        Thread cleanup = new Thread(this::killWorkers, "holdfast-demo-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            String store;
            try (Holdfast holdfast = Holdfast.connect(locksUri)) {
                store = holdfast.describe();
            }
            progress("holdfast demo: a flash sale of " + stock + " items, " + workers + " buyer processes");
            progress("  lock store:  " + store);
            progress("  stock table: " + io.holdfast.Uris.redact(shopUrl) + " (" + DemoShop.STOCK + ", run " + runId + ")");
            try (DemoShop shop = new DemoShop(shopUrl, runId)) {
                shop.setUp(PHASES, stock);
                try {
                    List<PhaseResult> results = new ArrayList<>();
                    progress("phase 1: no lock; each buyer reads the stock, thinks " + Durations.format(think) + ", writes stock-1");
                    results.add(crowd(shop, 1, "no lock", DemoWorker.Role.unlocked));
                    progress("phase 2: the same inside a Holdfast lock");
                    results.add(crowd(shop, 2, "holdfast lock", DemoWorker.Role.locked));
                    progress("phase 3: a lock holder frozen past its lease; writes fenced by token");
                    results.add(pausedHolder(shop));
                    return report(out, store, results);
                } finally {
                    shop.deleteRun();
                }
            }
        } finally {
            killWorkers();
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException e) {
                // already shutting down
            }
            if (keep) {
                progress("kept " + dir);
            } else {
                deleteRecursively(dir);
            }
        }
    }

    private void validate() {
        if (workers < 2 || workers > 32) {
            throw new ParameterException(spec.commandLine(), "--workers " + workers + " is not allowed; allowed: 2 to 32");
        }
        if (stock < 1 || stock > 1000) {
            throw new ParameterException(spec.commandLine(), "--stock " + stock + " is not allowed; allowed: 1 to 1000");
        }
        if (think.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new ParameterException(spec.commandLine(), "--think " + Durations.format(think) + " is not allowed; allowed: 0 to 10s");
        }
        try {
            Durations.requireLease(staleLease);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--stale-lease: " + e.getMessage());
        }
    }

    /** Phases 1 and 2: every buyer starts at once and buys until it sees the stock gone (at most --stock tries). */
    private PhaseResult crowd(DemoShop shop, int phase, String label, DemoWorker.Role role) throws Exception {
        List<Worker> buyers = new ArrayList<>();
        for (int w = 1; w <= workers; w++) {
            buyers.add(start(phase, w, role, "--attempts", Integer.toString(stock)));
        }
        for (Worker b : buyers) {
            b.await("READY", READY_TIMEOUT);
        }
        for (Worker b : buyers) {
            b.send("GO");
        }
        int attempts = 0;
        for (Worker b : buyers) {
            attempts += b.done().get("attempts");
        }
        return result(shop, phase, label, attempts, 0, "");
    }

    /** Phase 3: Kleppmann's pause, with SIGSTOP standing in for a long GC pause. */
    private PhaseResult pausedHolder(DemoShop shop) throws Exception {
        Worker stale = start(3, 1, DemoWorker.Role.paused, "--lease", Durations.format(staleLease));
        stale.await("READY", READY_TIMEOUT);
        stale.send("GO");
        Map<String, Long> holding = fields(stale.await("HOLDING", DONE_TIMEOUT));
        long staleToken = holding.get("token");
        boolean frozen = Processes.signal(stale.process.pid(), "STOP");
        long frozenAt = System.nanoTime();
        progress("  buyer 1 holds the lock (token " + staleToken + ", " + Durations.format(staleLease)
                + " lease, no renewal), read stock " + holding.get("qty") + ", and is "
                + (frozen ? "frozen (SIGSTOP)" : "stalled (SIGSTOP failed; it waits instead)"));
        List<Worker> others = new ArrayList<>();
        for (int w = 2; w <= workers; w++) {
            others.add(start(3, w, DemoWorker.Role.fenced, "--attempts", "1"));
        }
        for (Worker b : others) {
            b.await("READY", READY_TIMEOUT);
        }
        for (Worker b : others) {
            b.send("GO");
        }
        int attempts = 1;
        List<Long> otherTokens = new ArrayList<>();
        for (Worker b : others) {
            attempts += b.done().get("attempts");
            for (String line : b.seen) {
                if (line.startsWith("SALE") || line.startsWith("REJECTED")) {
                    otherTokens.add(fields(line).get("token"));
                }
            }
        }
        stale.send("WRITE"); // waits in the pipe until the process runs again
        if (frozen) {
            Processes.signal(stale.process.pid(), "CONT");
        }
        double pausedSeconds = (System.nanoTime() - frozenAt) / 1e9;
        Map<String, Integer> done = stale.done();
        boolean staleRejected = stale.seen.stream().anyMatch(l -> l.startsWith("REJECTED"));
        String rejectedFence = stale.seen.stream().filter(l -> l.startsWith("REJECTED"))
                .map(l -> String.valueOf(fields(l).get("fence"))).findFirst().orElse("?");
        otherTokens.sort(Comparator.naturalOrder());
        String story = String.format(Locale.ROOT,
                "buyer 1 took the lock (token %d, %s lease without renewal), read stock %d and was frozen for %.1fs; "
                        + "its lease ran out and buyers 2-%d took the lock (tokens %s). Resumed, buyer 1 wrote stock %d with token %d: ",
                staleToken, Durations.format(staleLease), holding.get("qty"), pausedSeconds, workers,
                otherTokens.isEmpty() ? "none" : otherTokens.toString(), holding.get("qty") - 1, staleToken)
                + (staleRejected
                    ? "UPDATE ... WHERE fence < " + staleToken + " matched no row (fence was " + rejectedFence + "), so the stale write "
                        + "was rejected. Without the fencing check it would have set the stock back to " + (holding.get("qty") - 1)
                        + ", undoing sales made under the lock."
                    : "the write was NOT rejected.");
        return result(shop, 3, "paused holder + fencing", attempts, done.get("rejected")
                + others.stream().mapToInt(b -> b.doneFields.get("rejected")).sum(), story);
    }

    private PhaseResult result(DemoShop shop, int phase, String label, int attempts, int rejected, String story) throws SQLException {
        int recorded = shop.salesRecorded(phase);
        long finalQty = shop.read(phase)[0];
        return new PhaseResult(phase, label, attempts, recorded, stock - finalQty, finalQty, rejected, story);
    }

    private int report(PrintWriter out, String store, List<PhaseResult> results) {
        PhaseResult unlocked = results.get(0);
        PhaseResult locked = results.get(1);
        PhaseResult fenced = results.get(2);
        List<String> problems = new ArrayList<>();
        if (locked.oversold() != 0 || locked.lostUpdates() != 0 || locked.recorded() != Math.min(stock, locked.attempts())) {
            problems.add("phase 2 did not sell exactly the stock under the lock");
        }
        if (fenced.rejected() < 1) {
            problems.add("phase 3's stale write was not rejected");
        }
        if (fenced.oversold() != 0 || fenced.lostUpdates() != 0) {
            problems.add("phase 3 oversold or lost updates");
        }
        if (json) {
            List<Object> phases = new ArrayList<>();
            for (PhaseResult r : results) {
                phases.add(Json.object().put("phase", r.phase()).put("name", r.label()).put("attempts", r.attempts())
                        .put("salesRecorded", r.recorded()).put("stockSold", r.sold()).put("finalStock", r.finalQty())
                        .put("oversold", r.oversold()).put("lostUpdates", r.lostUpdates())
                        .put("staleWritesRejected", r.rejected()));
            }
            out.println(Json.object().put("stock", stock).put("workers", workers).put("lockStore", store)
                    .put("phases", phases).put("ok", problems.isEmpty()).put("problems", problems));
        } else {
            Table table = new Table("PHASE", "BUY ATTEMPTS", "SALES RECORDED", "STOCK SOLD", "FINAL STOCK", "OVERSOLD",
                    "LOST UPDATES", "STALE WRITES REJECTED").alignRight(1, 2, 3, 4, 5, 6, 7);
            for (PhaseResult r : results) {
                table.row(r.phase() + " " + r.label(), r.attempts(), r.recorded(), r.sold(), r.finalQty(), r.oversold(),
                        r.lostUpdates(), r.rejected());
            }
            out.println();
            out.print(table.render());
            out.println();
            if (unlocked.oversold() > 0 || unlocked.lostUpdates() > 0) {
                out.println("1 no lock: " + unlocked.recorded() + " sales were recorded for " + stock + " items: "
                        + unlocked.oversold() + " oversold, " + unlocked.lostUpdates()
                        + " sales never left the stock (lost updates: buyers read the same stock and wrote the same stock-1).");
            } else {
                out.println("1 no lock: this run saw no oversell and no lost update; the race depends on timing "
                        + "(try more --workers or a longer --think).");
            }
            out.println("2 holdfast lock: " + locked.recorded() + " sales for " + stock + " items"
                    + (locked.oversold() == 0 && locked.lostUpdates() == 0 ? ", exactly the stock, never more." : "."));
            out.println("3 paused holder: " + fenced.story());
            out.println();
            out.println(problems.isEmpty() ? "ok: the lock kept the sale exact and the fencing token kept the stale write out."
                    : "UNEXPECTED: " + String.join("; ", problems));
        }
        out.flush();
        return problems.isEmpty() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    private Worker start(int phase, int worker, DemoWorker.Role role, String... extra) throws IOException {
        List<String> cmd = new ArrayList<>(Processes.parentDeathSignal("KILL"));
        List<String> java = Processes.javaCommand();
        cmd.add(java.get(0));
        // Small, quick-starting JVMs: the demo starts several on what may be a small machine.
        cmd.addAll(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx128m", "-XX:-UsePerfData",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=error"));
        cmd.addAll(java.subList(1, java.size()));
        cmd.addAll(List.of(HoldfastCli.class.getName(), "demo-worker", "--role", role.name(), "--shop", shopUrl,
                "--locks", locksUri, "--lock-name", lockName, "--run", runId, "--phase", Integer.toString(phase),
                "--worker", Integer.toString(worker), "--think", Durations.format(think)));
        cmd.addAll(List.of(extra));
        Path log = dir.resolve("phase" + phase + "-buyer" + worker + ".log");
        Process process = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        Worker w = new Worker(worker, process, log);
        running.add(w);
        return w;
    }

    private void killWorkers() {
        for (Worker w : running) {
            if (w.process.isAlive()) {
                w.process.destroyForcibly(); // SIGKILL also ends a stopped process
            }
        }
    }

    private void progress(String line) {
        err.println(line);
        err.flush();
    }

    static Map<String, Long> fields(String line) {
        Map<String, Long> fields = new HashMap<>();
        for (String part : line.split(" ")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                fields.put(part.substring(0, eq), Long.parseLong(part.substring(eq + 1)));
            }
        }
        return fields;
    }

    private static void deleteRecursively(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: it is a temporary directory
        }
    }

    /** What one phase did; {@code sold} is the initial stock minus the final stock. */
    record PhaseResult(int phase, String label, int attempts, int recorded, long sold, long finalQty, int rejected, String story) {
        /** Sales beyond the items there were (sold + final stock is the initial stock). */
        long oversold() {
            return Math.max(0, recorded - (sold + finalQty));
        }

        /** Sales the stock never reflected: buyers that wrote over each other's decrement. */
        long lostUpdates() {
            return recorded - sold;
        }
    }

    /** One buyer process and the lines it has said. */
    static final class Worker {
        private static final String EOF = "\u0000EOF";
        final int id;
        final Process process;
        final Path log;
        final List<String> seen = new ArrayList<>();
        Map<String, Integer> doneFields;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final OutputStream stdin;

        Worker(int id, Process process, Path log) {
            this.id = id;
            this.process = process;
            this.log = log;
            this.stdin = process.getOutputStream();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    // the process ended
                } finally {
                    lines.add(EOF);
                }
            }, "holdfast-demo-buyer-" + id);
            reader.setDaemon(true);
            reader.start();
        }

        void send(String line) throws IOException {
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        }

        /** Waits for a line starting with {@code word}; fails on ERROR, on exit, or after {@code timeout}. */
        String await(String word, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new IllegalStateException("buyer " + id + " did not say " + word + " within " + Durations.format(timeout)
                            + "; its log: " + log);
                }
                if (line.equals(EOF)) {
                    lines.add(EOF);
                    throw new IllegalStateException("buyer " + id + " exited before saying " + word + "; its log: " + log);
                }
                if (line.startsWith("ERROR")) {
                    throw new IllegalStateException("buyer " + id + " failed: " + line.substring(5).trim() + " (log: " + log + ")");
                }
                seen.add(line);
                if (line.startsWith(word)) {
                    return line;
                }
            }
        }

        /** Waits for DONE and returns its counts. */
        Map<String, Integer> done() throws InterruptedException {
            Map<String, Integer> counts = new HashMap<>();
            fields(await("DONE", DONE_TIMEOUT)).forEach((k, v) -> counts.put(k, v.intValue()));
            doneFields = counts;
            return counts;
        }
    }
}
