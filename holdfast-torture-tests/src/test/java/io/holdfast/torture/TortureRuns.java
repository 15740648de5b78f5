package io.holdfast.torture;

import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.StoreControl;
import io.holdfast.testkit.torture.Topology;
import io.holdfast.testkit.torture.TortureResult;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import io.holdfast.testkit.torture.TortureResult.RegisterOutcome;
import io.holdfast.testkit.torture.TortureRunner;
import io.holdfast.testkit.torture.TortureSettings;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The short CI run every backend gets, and the checks that hold on every backend. Reports go to
 * {@code target/torture/NAME/} (kept after the build, for a person to open), and the text report is
 * printed to the test's output.
 */
final class TortureRuns {
    /** Short enough for CI on two busy cores, long enough for each fault to come round once. */
    static final Duration CI_DURATION = Duration.ofSeconds(Long.getLong("holdfast.torture.seconds", 30));
    static final int CI_CLIENTS = 4;
    /** How far the topology runs skew client 2's wall clock ahead and client 3's behind. */
    static final Duration SKEW = Duration.ofSeconds(30);

    private TortureRuns() {
    }

    static TortureSettings.Builder settings(String name, String uri, Set<Fault> faults) throws IOException {
        Path dir = Path.of("target", "torture", name);
        Files.createDirectories(dir);
        return TortureSettings.builder(uri)
                .clients(CI_CLIENTS)
                .duration(CI_DURATION)
                .faults(faults)
                .lease(Duration.ofSeconds(2))
                .think(Duration.ofMillis(60))
                .acquireWait(Duration.ofSeconds(5))
                .seed(name.hashCode())
                .reportDir(dir);
    }

    /**
     * A topology's CI run: {@link #CI_CLIENTS} clients (1 and 3 with three threads), client 2's wall clock {@link #SKEW}
     * ahead and client 3's behind, 20 s (or {@code -Dholdfast.torture.seconds}), 2 s leases; reports in
     * {@code target/torture/LABEL/}.
     */
    static TortureSettings.Builder topology(Topology topology, Set<Fault> faults) throws IOException {
        String why = topology.whyUnavailable();
        assertThat(why).as("the " + topology.label() + " topology needs root, iproute2, nftables and its servers: run scripts/services").isNull();
        Path dir = Path.of("target", "torture", topology.label());
        Files.createDirectories(dir);
        return TortureSettings.builder(topology)
                .clients(CI_CLIENTS).threads(3)
                .clockSkew(2, SKEW).clockSkew(3, SKEW.negated())
                .duration(Duration.ofSeconds(Long.getLong("holdfast.torture.seconds", 20)))
                .faults(faults)
                .lease(Duration.ofSeconds(2)).think(Duration.ofMillis(60)).acquireWait(Duration.ofSeconds(5))
                .seed(topology.label().hashCode())
                .reportDir(dir);
    }

    /**
     * Runs the torture, failing if it has not finished within its duration plus 4 minutes (client start-up,
     * the last fault, the stop and the check all fit in that many times over).
     */
    static TortureResult run(TortureSettings settings, StoreControl control) throws Exception {
        TortureRunner runner = new TortureRunner(settings).progress(System.out::println);
        if (control != null) {
            runner.storeControl(control);
        }
        TortureResult result = assertTimeoutPreemptively(settings.duration().plusMinutes(4), runner::run,
                () -> "the torture run did not finish within its duration plus 4 minutes");
        System.out.println(Files.readString(result.textReport()));
        return result;
    }

    /**
     * What every backend must show: each fault asked for (and possible) was injected; the clients got
     * work done; the fenced counter lost nothing and its history accounts for its value; the reports exist.
     */
    static void assertFencedCounterExactUnderEveryFault(TortureResult r, Set<Fault> expectedInjected) throws IOException {
        Set<Fault> injected = EnumSet.noneOf(Fault.class);
        for (FaultWindow w : r.injected()) {
            injected.add(w.fault());
        }
        assertThat(injected).as("faults injected (report: %s)", r.textReport()).containsAll(expectedInjected);
        assertThat(r.acquisitions()).as("successful acquisitions").isGreaterThan(20);
        RegisterOutcome fenced = r.register("fenced");
        assertThat(fenced.writesOk()).as("applied fenced writes").isGreaterThan(20);
        assertThat(fenced.lostUpdates()).as("lost updates with the fencing guard (report: %s)", r.textReport()).isZero();
        assertThat(fenced.staleWrites()).as("stale fenced writes").isEmpty();
        assertThat(fenced.unexplained()).as("fenced increments no write accounts for").isZero();
        assertThat(fenced.finalValue()).as("fenced final value: applied writes plus at most the unknown ones")
                .isBetween(fenced.writesOk(), fenced.writesOk() + fenced.writesIndeterminate());
        for (RegisterOutcome other : r.registers()) {
            // The unguarded counters may lose updates, but the accounting must still add up.
            assertThat(other.unexplained()).as("%s increments no write accounts for", other.label()).isZero();
            assertThat(other.lostUpdates()).isEqualTo(Math.max(0, other.writesOk() - other.finalValue()));
        }
        // Contract 7 on every backend: a holder frozen or cut off past its lease is told it lost the hold
        // (listener, or its release throws) before it can overlap the next holder unaware.
        assertThat(r.unreportedLosses()).as("holders never told of their loss (report: %s)", r.textReport()).isEmpty();
        String text = Files.readString(r.textReport());
        assertThat(text).contains("Verdict:").contains("with the fencing guard: 0 lost updates");
        assertThat(Files.readString(r.htmlReport())).contains("<svg id=\"timeline\"").contains("class=\"hold hold-");
    }

    /** Every network namespace this JVM made is gone (a topology run tears down what it built, even on failure). */
    static void assertNoNamespaceOfThisJvmIsLeft() throws IOException {
        String mine = io.holdfast.testkit.torture.net.Network.PREFIX + ProcessHandle.current().pid() + "-";
        assertThat(io.holdfast.testkit.torture.net.Network.namespaces()).as("namespaces left behind").noneMatch(ns -> ns.startsWith(mine));
    }

    /** On a linearizable store: no two valid holds ever overlapped, and tokens kept real-time order. */
    static void assertLinearizableLock(TortureResult r) {
        assertThat(r.violations()).as("mutual-exclusion violations (report: %s)", r.textReport()).isEmpty();
        assertThat(r.tokenViolations()).as("token violations (report: %s)", r.textReport()).isEmpty();
    }

    /** The one-way partition cut a client off from every server ({@code servers}, as named in faults.tsv), one way. */
    static void assertOneWayPartitionCutAClientFromEveryServer(TortureResult r, String servers) throws IOException {
        String faults = Files.readString(r.textReport().resolveSibling("faults.tsv"));
        assertThat(faults).as("faults.tsv: the one-way partition, client to every server or every server to client")
                .containsPattern("\tone-way-partition\tclient \\d\t.*\t(c\\d -> " + servers + "|" + servers + " -> c\\d)\n");
    }

    /**
     * The run skewed client 2's wall clock {@link #SKEW} ahead and client 3's as far behind: each incarnation's start
     * event says how far its wall clock was off the run's time line (within a second of the skew; the unskewed
     * clients' within a second of none), and both skewed clients held the lock.
     */
    static void assertSkewedClientsTookPart(TortureResult r) throws IOException {
        String history = Files.readString(r.textReport().resolveSibling("history.tsv"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\n\\d+\t(\\d+)\t\\d+\tstart\tok\t.*wall clock ([-+][0-9.]+)s off").matcher(history);
        java.util.Set<Integer> started = new java.util.TreeSet<>();
        while (m.find()) {
            int client = Integer.parseInt(m.group(1));
            double expected = client == 2 ? SKEW.toSeconds() : client == 3 ? -SKEW.toSeconds() : 0;
            assertThat(Double.parseDouble(m.group(2))).as("client %d's wall clock, seconds off the run's clock", client)
                    .isBetween(expected - 1, expected + 1);
            started.add(client);
        }
        assertThat(started).as("clients whose start events say how far their wall clock was off").hasSize(r.settings().clients());
        for (int client : java.util.List.of(2, 3)) {
            assertThat(history).as("client %d (skewed clock) held the lock", client).containsPattern("\n\\d+\t" + client + "\t\\d+\tacquire\tok\t");
        }
        assertThat(Files.readString(r.textReport())).contains("client 2's wall clock 30 s ahead, client 3's wall clock 30 s behind");
    }

    /**
     * The HTML timeline outlines, for every partition that cut clients off, each such client's lane (dotted for a
     * one-way partition), naming the sides; and nothing else. At least {@code atLeast} partitions cut clients off.
     */
    static void assertTimelineOutlinesCutOffLanes(TortureResult r, int atLeast) throws IOException {
        String html = Files.readString(r.htmlReport());
        int expected = 0;
        int partitions = 0;
        for (FaultWindow w : r.injected()) {
            if (w.cutOffClients().isEmpty()) {
                continue;
            }
            partitions++;
            String sides = w.sides().replace(">", "&gt;");
            for (int client : w.cutOffClients()) {
                expected++;
                assertThat(html).as("report.html outlines client %d's lane for the %s (sides %s)", client, w.fault().label(), w.sides())
                        .containsPattern("<rect class=\"cut-off" + (w.oneWay() ? " one-way" : "") + "\" data-client=\"" + client
                                + "\"[^>]*><title>client " + client + " [^<]*" + java.util.regex.Pattern.quote(sides) + "</title></rect>");
            }
        }
        assertThat(partitions).as("partitions that cut clients off (faults.tsv)").isGreaterThanOrEqualTo(atLeast);
        assertThat(html.split("<rect class=\"cut-off", -1).length - 1).as("lane outlines in report.html").isEqualTo(expected);
    }
    /** The most holds in force at once in a merged history: from an acquire's completion to its release's invocation. */
    static int mostHoldsAtOnce(Path history) throws Exception {
        Map<String, long[]> spans = new HashMap<>(); // token -> {granted, released}
        for (String line : Files.readAllLines(history)) {
            String[] f = line.split("\t");
            if (line.startsWith("#") || f.length < 6) {
                continue;
            }
            if (f[3].equals("acquire") && f[4].equals("ok")) {
                spans.put(f[5], new long[] {Long.parseLong(f[0]), Long.MAX_VALUE});
            } else if (f[3].equals("release") && f[4].equals("invoke") && spans.containsKey(f[5])) {
                spans.get(f[5])[1] = Long.parseLong(f[0]);
            }
        }
        List<long[]> changes = new ArrayList<>(); // {time, +1 or -1}, ends before starts at the same time
        spans.values().forEach(s -> {
            changes.add(new long[] {s[0], 1});
            changes.add(new long[] {s[1], -1});
        });
        changes.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int now = 0;
        int most = 0;
        for (long[] c : changes) {
            now += (int) c[1];
            most = Math.max(most, now);
        }
        return most;
    }

    /** The clients whose acquisitions of {@code kind} ({@code read}, {@code write}, {@code leader}) the merged history records, by token. */
    static Map<String, String> acquired(Path history, String kind) throws IOException {
        Map<String, String> clients = new HashMap<>(); // token -> client
        for (String line : Files.readAllLines(history)) {
            String[] f = line.split("\t");
            if (!line.startsWith("#") && f.length >= 8 && f[3].equals("acquire") && f[4].equals("ok") && f[7].equals(kind)) {
                clients.put(f[5], f[1]);
            }
        }
        return clients;
    }

    /**
     * What a read-write lock run must show: what every run shows of the fenced counter, no writer beside anyone,
     * tokens in real-time order; and it tested a read-write lock: two holds were in force at once (readers) and
     * writes were taken.
     */
    static void assertReadWriteLockRun(TortureResult r, Set<Fault> expectedInjected) throws Exception {
        assertFencedCounterExactUnderEveryFault(r, expectedInjected);
        assertLinearizableLock(r);
        Path history = r.textReport().resolveSibling("history.tsv");
        assertThat(Files.readString(r.textReport())).contains("No writer with anyone (read-write lock): OK");
        assertThat(mostHoldsAtOnce(history)).as("holds at once (readers share)").isGreaterThanOrEqualTo(2);
        assertThat(acquired(history, "write")).as("writes taken").hasSizeGreaterThan(2);
        assertThat(acquired(history, "read")).as("reads taken").hasSizeGreaterThan(2);
    }

    /** What a leader run must show: the fenced counter, one leader at a time, no term twice; and leadership changed hands. */
    static void assertLeaderRun(TortureResult r, Set<Fault> expectedInjected) throws Exception {
        assertFencedCounterExactUnderEveryFault(r, expectedInjected);
        assertLinearizableLock(r);
        assertThat(Files.readString(r.textReport())).contains("One leader at a time: OK");
        Map<String, String> terms = acquired(r.textReport().resolveSibling("history.tsv"), "leader");
        assertThat(terms).as("terms").hasSizeGreaterThan(5);
        assertThat(new HashSet<>(terms.values())).as("clients elected").hasSizeGreaterThan(1);
    }
}
