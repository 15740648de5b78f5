package io.holdfast.bench;

import org.HdrHistogram.Histogram;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * One measurement of shapes 1 to 4: {@code threads} platform threads, thread {@code i} on locker
 * {@code lockers.get(i % lockers.size())} (one locker: the threads share one client; one per thread: separate
 * clients) and lock name {@code names.apply(i)}, loop acquire (waiting at most the settings' wait) → check nobody
 * else is inside that name → release, timed by a {@link Window} (warm-up, measured time or most acquisitions, stuck threads reported).
 */
final class Measurement {
    private final List<Locker> lockers;
    private final IntFunction<String> names;
    private final RunSettings settings;
    private final Window window;

    private final AtomicInteger[] inside;
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicInteger lastHolder = new AtomicInteger(-1);
    private final AtomicLong releaseStarted = new AtomicLong();
    private final AtomicLong handoffs = new AtomicLong();
    private final long[] perThread;
    private final Histogram[] cycles;
    private final Histogram[] waits;
    private final Histogram[] handoffTimes;

    /**
     * What the threads did in the measured window.
     *
     * @param acquisitions measured acquisitions (a thread re-taking a lock it just released counts)
     * @param handoffs     measured acquisitions by a different thread than the previous holder of the same name
     * @param seconds      measured time
     * @param cycles       acquire + release of each measured acquisition, µs
     * @param waits        from asking for the lock until holding it, µs
     * @param handoffTimes from the previous holder starting its release until a different thread holds the lock, µs
     * @param fewest       fewest measured acquisitions any one thread got (fairness)
     * @param most         most measured acquisitions any one thread got
     * @param overlaps     acquisitions (warm-up included) that found another holder inside: must be 0
     * @param timeouts     measured waits that ended without the lock
     * @param server       change of the server's counters over the window, in {@link ServerMeter#names()}'s order
     */
    record Measured(long acquisitions, long handoffs, double seconds, Histogram cycles, Histogram waits, Histogram handoffTimes,
                    long fewest, long most, long overlaps, long timeouts, double[] server) {
    }

    Measurement(List<Locker> lockers, IntFunction<String> names, int threads, RunSettings settings, ServerMeter meter) {
        this.lockers = List.copyOf(lockers);
        this.names = names;
        this.settings = settings;
        this.window = new Window(threads, settings.measure(), settings, meter);
        this.perThread = new long[threads];
        this.cycles = Window.histograms(threads);
        this.waits = Window.histograms(threads);
        this.handoffTimes = Window.histograms(threads);
        this.inside = new AtomicInteger[threads];
        for (int i = 0; i < threads; i++) {
            inside[i] = new AtomicInteger();
        }
    }

    /**
     * Runs the warm-up and the measurement.
     *
     * @throws IllegalStateException if a thread failed or did not stop
     */
    Measured run() throws Exception {
        Window.Timed t = window.run(this::work);
        return new Measured(t.counted(), handoffs.get(), t.seconds(), Window.merged(cycles), Window.merged(waits), Window.merged(handoffTimes),
                Arrays.stream(perThread).min().orElse(0), Arrays.stream(perThread).max().orElse(0), overlaps.get(), t.timeouts(), t.server());
    }

    private void work(int index) throws Exception {
        Locker locker = lockers.get(index % lockers.size());
        String name = names.apply(index);
        // Threads on one name share one slot; a thread on a name of its own has its own.
        AtomicInteger slot = inside[name.equals(names.apply(0)) ? 0 : index];
        while (!window.stopped()) {
            Window.Attempt a = window.attempt(() -> locker.acquire(name, settings.acquireWait()));
            Object held = a.held();
            if (held == null) {
                continue;
            }
            boolean counted = window.measuring();
            try {
                if (slot.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                int previous = lastHolder.getAndSet(index);
                if (counted) {
                    perThread[index]++;
                    Window.record(waits[index], a.granted() - a.asked());
                    if (previous >= 0 && previous != index) {
                        handoffs.incrementAndGet();
                        Window.record(handoffTimes[index], a.granted() - releaseStarted.get());
                    }
                    window.count();
                }
                slot.decrementAndGet();
                releaseStarted.set(System.nanoTime());
            } finally {
                locker.release(held);
            }
            if (counted) {
                Window.record(cycles[index], System.nanoTime() - a.asked());
            }
        }
    }
}
