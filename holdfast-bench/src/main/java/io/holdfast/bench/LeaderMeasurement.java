package io.holdfast.bench;

import org.HdrHistogram.Histogram;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One measurement of shape 9: one candidate per client, each on a thread of its own, timed by a {@link Window}.
 * A candidate joins the election and waits (at most the settings' wait at a time, each wait that runs out counted)
 * until its elected callback; the callback counts it in as leader, and finding another leader in is an overlap (must
 * be 0; counted until the stop). The leader then steps down at once: notes the time, counts itself out, closes its
 * candidacy (resigning) and joins again. Every election after a step-down is a term; a term of another candidate than
 * the previous leader is a failover (the rest are the leader that just resigned winning again, as it can where the
 * store does not queue candidates), and its time runs from the previous leader's step-down to the new leader's
 * elected callback.
 */
final class LeaderMeasurement {
    private final List<RecipeLibrary.Client> clients;
    private final String name;
    private final RunSettings settings;
    private final ServerMeter meter;
    private final Window window;
    private final AtomicInteger leaders = new AtomicInteger();
    private final AtomicLong steppedDown = new AtomicLong(); // nanoTime of the last step-down, 0 before the first
    private final AtomicInteger lastLeader = new AtomicInteger(-1);
    private final AtomicLong failoverCount = new AtomicLong();
    private final AtomicLong overlaps = new AtomicLong();
    private final long[] terms;
    private final Histogram[] failovers;

    LeaderMeasurement(List<RecipeLibrary.Client> clients, String name, RunSettings settings, ServerMeter meter) {
        this.clients = List.copyOf(clients);
        this.name = name;
        this.settings = settings;
        this.meter = meter;
        this.window = new Window(clients.size(), settings.recipeMeasure(), settings, meter);
        this.terms = new long[clients.size()];
        this.failovers = Window.histograms(clients.size());
    }

    /**
     * Runs the warm-up and the measurement; the shape's columns.
     *
     * @throws IllegalStateException if a thread failed or did not stop
     */
    Map<Column, Double> run() throws Exception {
        Window.Timed t = window.run(this::work);
        Histogram times = Window.merged(failovers);
        Map<Column, Double> v = new LinkedHashMap<>();
        v.put(Column.median("terms/s", 1), t.counted() / t.seconds());
        v.put(Column.median("failovers/s", 1), failoverCount.get() / t.seconds());
        v.put(Column.median("failover p50 ms", 2), times.getValueAtPercentile(50) / 1e3);
        v.put(Column.median("failover p99 ms", 2), times.getValueAtPercentile(99) / 1e3);
        v.put(Column.median("fewest terms per candidate", 0), (double) java.util.Arrays.stream(terms).min().orElse(0));
        v.put(Column.median("most terms per candidate", 0), (double) java.util.Arrays.stream(terms).max().orElse(0));
        v.put(Column.sum("timed-out waits"), (double) t.timeouts());
        v.put(Column.sum(Runner.OVERLAPS), (double) overlaps.get());
        v.putAll(Column.server(meter.names(), t.server(), t.counted(), "term"));
        return v;
    }

    private void work(int index) throws Exception {
        RecipeLibrary.Client client = clients.get(index);
        while (!window.stopped()) {
            AtomicLong electedAt = new AtomicLong();
            CountDownLatch elected = new CountDownLatch(1);
            AutoCloseable candidacy = client.join(name, () -> {
                electedAt.set(System.nanoTime());
                if (leaders.incrementAndGet() != 1 && !window.stopped()) {
                    overlaps.incrementAndGet();
                }
                elected.countDown();
            });
            try {
                boolean won = false;
                while (!window.stopped() && !(won = elected.await(settings.acquireWait().toNanos(), TimeUnit.NANOSECONDS))) {
                    window.timedOut();
                }
                if (won) {
                    long from = steppedDown.get();
                    boolean other = lastLeader.getAndSet(index) != index;
                    if (window.measuring() && from != 0) {
                        terms[index]++;
                        window.count();
                        if (other) {
                            failoverCount.incrementAndGet();
                            Window.record(failovers[index], electedAt.get() - from);
                        }
                    }
                    steppedDown.set(System.nanoTime());
                }
            } finally {
                if (elected.getCount() == 0) {
                    leaders.decrementAndGet(); // stepping down: out before the resignation lets a successor in
                }
                candidacy.close();
            }
        }
    }
}
