package io.holdfast.bench;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * One measurement of shapes 1 to 4: {@code threads} platform threads, thread {@code i} on locker
 * {@code lockers.get(i % lockers.size())} (one locker: the threads share one client; one per thread: separate
 * clients) and lock name {@code names.apply(i)}, loop acquire (waiting at most the settings' wait) → check nobody
 * else is inside that name → release, first for the warm-up (not counted), then for the measured time or until the
 * settings' most acquisitions, whichever comes first. Every thread then finishes its current acquire and stops; one
 * that has not stopped {@link #stuckAfter} later is reported as stuck. The server's counters are read at the start and end
 * of the measured window.
 */
final class Measurement {
    private final List<Locker> lockers;
    private final IntFunction<String> names;
    private final int threads;
    private final RunSettings settings;
    private final ServerMeter meter;

    private final AtomicBoolean stop = new AtomicBoolean();
    private volatile boolean measuring;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicInteger[] inside;
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicInteger lastHolder = new AtomicInteger(-1);
    private final AtomicLong releaseStarted = new AtomicLong();
    private final AtomicLong measured = new AtomicLong();
    private final AtomicLong handoffs = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
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
        this.threads = threads;
        this.settings = settings;
        this.meter = meter;
        this.perThread = new long[threads];
        this.cycles = histograms(threads);
        this.waits = histograms(threads);
        this.handoffTimes = histograms(threads);
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
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int index = i;
            Thread t = new Thread(() -> work(index, go), "bench-" + threads + "-" + i);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        go.countDown();
        ended.await(settings.warmup().toNanos(), TimeUnit.NANOSECONDS); // returns early only on a failure
        double[] before = meter.read();
        long start = System.nanoTime();
        measuring = true;
        ended.await(settings.measure().toNanos(), TimeUnit.NANOSECONDS); // early on the count bound or a failure
        measuring = false;
        double seconds = (System.nanoTime() - start) / 1e9;
        double[] server = ServerMeter.delta(before, meter.read());
        stop.set(true);
        awaitStopped(workers);
        if (failure.get() != null) {
            throw new IllegalStateException("a thread failed: " + failure.get(), failure.get());
        }
        return new Measured(measured.get(), handoffs.get(), seconds, merged(cycles), merged(waits), merged(handoffTimes),
                Arrays.stream(perThread).min().orElse(0), Arrays.stream(perThread).max().orElse(0), overlaps.get(), timeouts.get(), server);
    }

    /** How long after the stop a thread may still be inside acquire: its wait, and as long again (at least 10 s) for the rest. */
    private Duration stuckAfter() {
        Duration wait = settings.acquireWait();
        return wait.plus(wait.compareTo(Duration.ofSeconds(10)) > 0 ? wait : Duration.ofSeconds(10));
    }

    private void awaitStopped(List<Thread> workers) throws InterruptedException {
        long joinDeadline = System.nanoTime() + stuckAfter().toNanos();
        List<Thread> stuck = new ArrayList<>();
        for (Thread t : workers) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinDeadline - System.nanoTime())));
            if (t.isAlive()) {
                stuck.add(t);
            }
        }
        if (!stuck.isEmpty()) {
            StackTraceElement[] stack = stuck.get(0).getStackTrace();
            stuck.forEach(Thread::interrupt);
            throw new IllegalStateException(stuck.size() + " of " + threads + " threads still inside acquire " + stuckAfter().toSeconds()
                    + " s after the stop (each wait is bounded by " + settings.acquireWait().toSeconds() + " s); one of them at "
                    + String.join(" < ", Arrays.stream(stack).limit(6).map(StackTraceElement::toString).toList()));
        }
    }

    private void work(int index, CountDownLatch go) {
        Locker locker = lockers.get(index % lockers.size());
        String name = names.apply(index);
        // Threads on one name share one slot; a thread on a name of its own has its own.
        AtomicInteger slot = inside[name.equals(names.apply(0)) ? 0 : index];
        try {
            go.await();
            while (!stop.get()) {
                long asked = System.nanoTime();
                Object held = locker.acquire(name, settings.acquireWait());
                long granted = System.nanoTime();
                if (held == null) {
                    if (measuring) {
                        timeouts.incrementAndGet();
                    }
                    continue;
                }
                boolean counted = measuring;
                try {
                    if (slot.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    int previous = lastHolder.getAndSet(index);
                    if (counted) {
                        perThread[index]++;
                        waits[index].recordValue(Math.max(1, (granted - asked) / 1000));
                        if (previous >= 0 && previous != index) {
                            handoffs.incrementAndGet();
                            handoffTimes[index].recordValue(Math.max(1, (granted - releaseStarted.get()) / 1000));
                        }
                        if (measured.incrementAndGet() >= settings.maxAcquisitions()) {
                            ended.countDown();
                        }
                    }
                    slot.decrementAndGet();
                    releaseStarted.set(System.nanoTime());
                } finally {
                    locker.release(held);
                }
                if (counted) {
                    cycles[index].recordValue(Math.max(1, (System.nanoTime() - asked) / 1000));
                }
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
            stop.set(true);
            ended.countDown();
        }
    }

    private static Histogram[] histograms(int n) {
        Histogram[] h = new Histogram[n];
        for (int i = 0; i < n; i++) {
            h[i] = new Histogram(3);
        }
        return h;
    }

    private static Histogram merged(Histogram[] parts) {
        Histogram all = new Histogram(3);
        for (Histogram h : parts) {
            all.add(h);
        }
        return all;
    }
}
