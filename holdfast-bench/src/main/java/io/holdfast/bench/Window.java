package io.holdfast.bench;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The timing every measurement shares: {@code threads} platform threads run a body that loops until
 * {@link #stopped()}, first for the warm-up (not counted), then for the measured time or until
 * {@link #count()} reaches the settings' most acquisitions, whichever comes first. Every thread then finishes its
 * current step and stops; one that has not stopped {@link #stuckAfter} later is reported as stuck, with its stack.
 * The server's counters are read at the start and end of the measured window. A body that throws ends the window
 * and fails the measurement.
 */
final class Window {

    /** What one thread does, looping until {@link Window#stopped()}. */
    interface Body {
        void run(int index) throws Exception;
    }

    /**
     * @param seconds  measured time
     * @param counted  what {@link #count()} counted in the window
     * @param timeouts waits that ran out in the window ({@link #attempt}, {@link #timedOut()})
     * @param server   change of the server's counters over the window, in {@link ServerMeter#names()}'s order
     */
    record Timed(double seconds, long counted, long timeouts, double[] server) {
    }

    /**
     * One acquire, timed.
     *
     * @param held    what it returned; null if its wait ran out
     * @param asked   {@link System#nanoTime()} before the call
     * @param granted {@link System#nanoTime()} after it
     */
    record Attempt(Object held, long asked, long granted) {
    }

    private final int threads;
    private final Duration measure;
    private final RunSettings settings;
    private final ServerMeter meter;
    private final AtomicBoolean stop = new AtomicBoolean();
    private volatile boolean measuring;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicLong counted = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();

    Window(int threads, Duration measure, RunSettings settings, ServerMeter meter) {
        this.threads = threads;
        this.measure = measure;
        this.settings = settings;
        this.meter = meter;
    }

    /** True while the measured window is open: what happens now is counted. */
    boolean measuring() {
        return measuring;
    }

    /** True once the threads should stop. */
    boolean stopped() {
        return stop.get();
    }

    /** Counts one measured acquisition (or failover); the window ends early at the settings' most acquisitions. */
    void count() {
        if (counted.incrementAndGet() >= settings.maxAcquisitions()) {
            ended.countDown();
        }
    }

    /** Counts a wait that ran out, if in the measured window. */
    void timedOut() {
        if (measuring) {
            timeouts.incrementAndGet();
        }
    }

    /** Calls {@code acquire} (which returns null when its wait runs out, counted by {@link #timedOut()}), timing it. */
    Attempt attempt(java.util.concurrent.Callable<Object> acquire) throws Exception {
        long asked = System.nanoTime();
        Object held = acquire.call();
        long granted = System.nanoTime();
        if (held == null) {
            timedOut();
        }
        return new Attempt(held, asked, granted);
    }

    /**
     * Runs the warm-up and the measurement.
     *
     * @throws IllegalStateException if a thread failed or did not stop
     */
    Timed run(Body body) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int index = i;
            Thread t = new Thread(() -> {
                try {
                    go.await();
                    body.run(index);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    stop.set(true);
                    ended.countDown();
                }
            }, "bench-" + threads + "-" + i);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        go.countDown();
        ended.await(settings.warmup().toNanos(), TimeUnit.NANOSECONDS); // returns early only on a failure
        double[] before = meter.read();
        long start = System.nanoTime();
        measuring = true;
        ended.await(measure.toNanos(), TimeUnit.NANOSECONDS); // early on the count bound or a failure
        measuring = false;
        double seconds = (System.nanoTime() - start) / 1e9;
        double[] server = ServerMeter.delta(before, meter.read());
        stop.set(true);
        awaitStopped(workers);
        if (failure.get() != null) {
            throw new IllegalStateException("a thread failed: " + failure.get(), failure.get());
        }
        return new Timed(seconds, counted.get(), timeouts.get(), server);
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

    /** One histogram per thread (µs, 3 significant digits), merged after the run by {@link #merged}. */
    static Histogram[] histograms(int n) {
        Histogram[] h = new Histogram[n];
        for (int i = 0; i < n; i++) {
            h[i] = new Histogram(3);
        }
        return h;
    }

    static Histogram merged(Histogram[] parts) {
        Histogram all = new Histogram(3);
        for (Histogram h : parts) {
            all.add(h);
        }
        return all;
    }

    /** Records {@code nanos} in µs (at least 1). */
    static void record(Histogram h, long nanos) {
        h.recordValue(Math.max(1, nanos / 1000));
    }
}
