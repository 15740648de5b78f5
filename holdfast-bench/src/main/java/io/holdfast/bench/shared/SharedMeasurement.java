package io.holdfast.bench.shared;

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

/**
 * One measurement: {@code threads} platform threads share one {@link Locker} and loop acquire (waiting at most
 * {@code wait}) → check nobody else is inside → release on one lock name, first for the warm-up (not counted), then for
 * the measured time or until {@code maxAcquisitions}, whichever comes first. Every thread then finishes its current
 * acquire and stops; one that has not stopped {@code wait} + 30 s later is reported as stuck.
 */
final class SharedMeasurement {
    private final Locker locker;
    private final String lockName;
    private final int threads;
    private final SharedClientRunner.Settings settings;

    private final AtomicBoolean stop = new AtomicBoolean();
    private volatile boolean measuring;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicInteger lastHolder = new AtomicInteger(-1);
    private final AtomicLong measured = new AtomicLong();
    private final AtomicLong handoffs = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final long[] perThread;
    private final Histogram[] waits;

    SharedMeasurement(Locker locker, String lockName, int threads, SharedClientRunner.Settings settings) {
        this.locker = locker;
        this.lockName = lockName;
        this.threads = threads;
        this.settings = settings;
        this.perThread = new long[threads];
        this.waits = new Histogram[threads];
        for (int i = 0; i < threads; i++) {
            waits[i] = new Histogram(3);
        }
    }

    /**
     * Runs the warm-up and the measurement.
     *
     * @throws IllegalStateException if a thread failed or did not stop
     */
    SharedClientRunner.Result run() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int index = i;
            Thread t = new Thread(() -> work(index, go), "shared-client-" + threads + "-" + i);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }
        go.countDown();
        ended.await(settings.warmup().toNanos(), TimeUnit.NANOSECONDS); // returns early only on a failure
        long start = System.nanoTime();
        measuring = true;
        ended.await(settings.measure().toNanos(), TimeUnit.NANOSECONDS); // early on the count bound or a failure
        measuring = false;
        double seconds = (System.nanoTime() - start) / 1e9;
        stop.set(true);
        long joinDeadline = System.nanoTime() + settings.acquireWait().plusSeconds(30).toNanos();
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
            throw new IllegalStateException(stuck.size() + " of " + threads + " threads still inside acquire " + settings.acquireWait().plusSeconds(30).toSeconds()
                    + " s after the stop (each wait is bounded by " + settings.acquireWait().toSeconds() + " s); one of them at "
                    + String.join(" < ", Arrays.stream(stack).limit(6).map(StackTraceElement::toString).toList()));
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a thread failed: " + failure.get(), failure.get());
        }
        Histogram all = new Histogram(3);
        for (Histogram h : waits) {
            all.add(h);
        }
        long fewest = Arrays.stream(perThread).min().orElse(0);
        long most = Arrays.stream(perThread).max().orElse(0);
        return new SharedClientRunner.Result(threads, measured.get(), handoffs.get(), seconds, all, fewest, most, overlaps.get(), timeouts.get());
    }

    private void work(int index, CountDownLatch go) {
        try {
            go.await();
            while (!stop.get()) {
                long asked = System.nanoTime();
                Object held = locker.acquire(lockName, settings.acquireWait());
                long waited = System.nanoTime() - asked;
                if (held == null) {
                    if (measuring) {
                        timeouts.incrementAndGet();
                    }
                    continue;
                }
                try {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    int previous = lastHolder.getAndSet(index);
                    if (measuring) {
                        perThread[index]++;
                        waits[index].recordValue(Math.max(1, waited / 1000));
                        if (previous >= 0 && previous != index) {
                            handoffs.incrementAndGet();
                        }
                        if (measured.incrementAndGet() >= settings.maxAcquisitions()) {
                            ended.countDown();
                        }
                    }
                    inside.decrementAndGet();
                } finally {
                    locker.release(held);
                }
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
            stop.set(true);
            ended.countDown();
        }
    }
}
