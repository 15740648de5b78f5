package io.holdfast.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Shape 5: one client takes {@code locks} free locks with a short lease and keeps them through renewal (the
 * library's own, or {@link Locker#renew} every lease/3 by the harness for a library without a schedule), all on one
 * thread (some libraries tie a hold to the thread that took it; the harness starts renewing while still taking, so the
 * first locks never lapse). After one lease has passed, the server's counters
 * are read over the measured time; then a second client of the same library tries every name once: a lock it gets
 * was lost (its lease lapsed), so "held at end" shows whether renewal kept every lock.
 */
final class ManyHeld {
    private final LockLibrary library;
    private final RunSettings settings;
    private final ServerMeter meter;
    private final List<String> names = new ArrayList<>();
    private final CountDownLatch taken = new CountDownLatch(1);
    private final CountDownLatch stop = new CountDownLatch(1);
    private final AtomicInteger renewalFailures = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    ManyHeld(LockLibrary library, RunSettings settings, ServerMeter meter) {
        this.library = library;
        this.settings = settings;
        this.meter = meter;
        String run = UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < settings.locks(); i++) {
            names.add("many-" + run + "-" + i);
        }
    }

    /** Runs the shape; the row's values. */
    Map<Column, Double> run() throws Exception {
        Duration lease = settings.lease();
        try (Locker holder = library.open(lease)) {
            Thread thread = new Thread(() -> hold(holder), "bench-many-held");
            thread.setDaemon(true);
            long start = System.nanoTime();
            thread.start();
            try {
                if (!taken.await(settings.acquireWait().toSeconds() + settings.locks() / 10 + 30, TimeUnit.SECONDS) || failure.get() != null) {
                    throw new IllegalStateException("taking " + names.size() + " free locks failed: " + failure.get(), failure.get());
                }
                double takeSeconds = (System.nanoTime() - start) / 1e9;
                Thread.sleep(lease.toMillis()); // every lock is now older than its lease: only renewal keeps it
                double[] before = meter.read();
                long from = System.nanoTime();
                Thread.sleep(settings.measure().toMillis());
                double seconds = (System.nanoTime() - from) / 1e9;
                double[] used = ServerMeter.delta(before, meter.read());
                int lost = lost(lease);
                if (failure.get() != null) {
                    throw new IllegalStateException("the holding thread failed: " + failure.get(), failure.get());
                }
                Map<Column, Double> values = new LinkedHashMap<>();
                values.put(Column.median("take all, s", 2), takeSeconds);
                values.put(Column.min("held at end"), (double) (names.size() - lost));
                values.put(Column.sum("renewal failures"), (double) renewalFailures.get());
                values.putAll(Column.server(meter.names(), used, seconds, "s"));
                return values;
            } finally {
                stop.countDown();
                thread.join(TimeUnit.SECONDS.toMillis(60));
            }
        }
    }

    /** How many of the names a second client gets at once (closed before the holder releases, so it hears nothing of that). */
    private void renewAll(Locker locker, List<Object> held) throws Exception {
        for (int i = 0; i < held.size(); i++) {
            if (held.get(i) != null) {
                Object renewed = locker.renew(held.get(i));
                renewalFailures.addAndGet(renewed == null ? 1 : 0);
                held.set(i, renewed);
            }
        }
    }

    private int lost(Duration lease) throws Exception {
        int lost = 0;
        try (Locker probe = library.open(lease)) {
            for (String name : names) {
                Object got = probe.acquire(name, Duration.ZERO);
                if (got != null) {
                    lost++;
                    probe.release(got);
                }
            }
        }
        return lost;
    }

    private void hold(Locker locker) {
        List<Object> held = new ArrayList<>(names.size());
        try {
            boolean byHarness = library.renewal() == LockLibrary.Renewal.BY_HARNESS;
            long period = settings.lease().toNanos() / 3;
            long round = System.nanoTime();
            for (String name : names) {
                Object h = locker.acquire(name, settings.acquireWait());
                if (h == null) {
                    throw new IllegalStateException("free lock " + name + " not acquired within " + settings.acquireWait());
                }
                held.add(h);
                if (byHarness && System.nanoTime() - round >= period) { // renewing while still taking: the first never lapse
                    round = System.nanoTime();
                    renewAll(locker, held);
                }
            }
            taken.countDown();
            while (!stop.await(byHarness ? Math.max(0, round + period - System.nanoTime()) : Long.MAX_VALUE, TimeUnit.NANOSECONDS)) {
                round = System.nanoTime();
                renewAll(locker, held);
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
            taken.countDown();
        } finally {
            for (Object h : held) {
                try {
                    if (h != null) {
                        locker.release(h);
                    }
                } catch (Exception e) {
                    // released after its lease had lapsed: the probe has counted it
                }
            }
        }
    }
}
