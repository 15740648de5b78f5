package io.holdfast.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds many locks of a library whose renewal the application must drive itself: one thread takes
 * every lock, renews each of them every {@code period} (starting while it is still taking them, so the
 * first ones never lapse), and releases them when closed. Everything runs on that one thread, because
 * some libraries (Spring's {@code JdbcLockRegistry}) tie a hold to the thread that took it.
 *
 * @param <L> the library's handle on one held lock
 */
abstract class RenewingHolder<L> implements Contender.Holding {
    private final List<String> names;
    private final long periodNanos;
    private final CountDownLatch acquired = new CountDownLatch(1);
    private final CountDownLatch stop = new CountDownLatch(1);
    private final AtomicInteger renewalFailures = new AtomicInteger();
    private final Thread thread;
    private volatile Throwable failure;

    RenewingHolder(String threadName, List<String> names, Duration period) {
        this.names = List.copyOf(names);
        this.periodNanos = period.toNanos();
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    /** Takes one free lock; runs on the holder thread. */
    abstract L take(String name) throws Exception;

    /** Renews one lock; returns the handle to use from now on, or null if the library could not renew it. */
    abstract L renew(String name, L held) throws Exception;

    /** Releases one lock. */
    abstract void release(L held) throws Exception;

    /** Starts the thread and returns once every lock is held. */
    RenewingHolder<L> start(Duration timeout) throws InterruptedException {
        thread.start();
        if (!acquired.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            close();
            throw new IllegalStateException("taking " + names.size() + " locks took longer than " + timeout);
        }
        if (failure != null) {
            close();
            throw new IllegalStateException("taking " + names.size() + " locks failed: " + failure, failure);
        }
        return this;
    }

    private void run() {
        List<L> held = new ArrayList<>(names.size());
        long roundStart = System.nanoTime();
        try {
            for (String name : names) {
                held.add(take(name));
                if (System.nanoTime() - roundStart >= periodNanos) {
                    roundStart = System.nanoTime();
                    renewAll(held);
                }
            }
            acquired.countDown();
            while (!stop.await(Math.max(0, roundStart + periodNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                roundStart = System.nanoTime();
                renewAll(held);
            }
        } catch (Throwable t) {
            failure = t;
            acquired.countDown();
        } finally {
            for (L h : held) {
                if (h != null) {
                    try {
                        release(h);
                    } catch (Exception e) {
                        renewalFailures.incrementAndGet(); // released late: its lease had lapsed
                    }
                }
            }
        }
    }

    private void renewAll(List<L> held) throws Exception {
        for (int i = 0; i < held.size(); i++) {
            L h = held.get(i);
            if (h == null) {
                continue;
            }
            L renewed = renew(names.get(i), h);
            if (renewed == null) {
                renewalFailures.incrementAndGet();
            }
            held.set(i, renewed);
        }
    }

    @Override
    public int renewalFailures() {
        return renewalFailures.get();
    }

    @Override
    public void close() {
        stop.countDown();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while " + thread.getName() + " released its locks", e);
        }
        if (thread.isAlive()) {
            throw new IllegalStateException(thread.getName() + " did not finish releasing within 60 s");
        }
    }
}
