package io.holdfast.testkit;

import io.holdfast.DistributedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A child-JVM program (JDK 21+): {@code THREADS} virtual threads share one client and each takes the lock
 * {@code NAME} once, doing read-sleep-write on a plain counter inside. Prints
 * {@code probe acquired=N counter=C peakPlatformThreads=P} and exits 0, or prints {@code probe failed: ...}
 * and exits 1. The waits have no deadline: a slow machine only makes the run longer. What fails it is a stall,
 * {@link #STALL} without a single acquisition while threads still wait, which no store's hand-off comes near.
 * Built for release 17, so it reaches virtual threads reflectively.
 */
public final class VirtualThreadProbe {
    /** Longest time without any acquisition that is not a stall. */
    static final Duration STALL = Duration.ofSeconds(30);

    private VirtualThreadProbe() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String name = args[1];
        int threads = Integer.parseInt(args[2]);
        int[] counter = {0};
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        ExecutorService virtual = (ExecutorService) Class.forName("java.util.concurrent.Executors")
                .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        try (Holdfast holdfast = Holdfast.connect(uri)) {
            DistributedLock lock = holdfast.lock(name);
            List<Future<?>> all = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                all.add(virtual.submit(() -> {
                    try (Hold hold = lock.acquire()) {
                        if (inside.incrementAndGet() != 1) {
                            throw new IllegalStateException("two holders inside at once");
                        }
                        int read = counter[0];
                        Thread.sleep(1);
                        counter[0] = read + 1;
                        acquired.incrementAndGet();
                        inside.decrementAndGet();
                    }
                    return null;
                }));
            }
            int seen = 0;
            long lastProgress = System.nanoTime();
            while (!all.stream().allMatch(Future::isDone)) {
                Thread.sleep(200);
                int now = acquired.get();
                if (now != seen) {
                    seen = now;
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > STALL.toNanos()) {
                    throw new IllegalStateException("stalled: no acquisition for " + STALL.toSeconds() + " s, "
                            + now + " of " + threads + " threads served");
                }
            }
            for (Future<?> f : all) {
                f.get(1, TimeUnit.SECONDS); // done: reports a thread's failure
            }
        } catch (Exception e) {
            System.out.println("probe failed: " + e);
            e.printStackTrace(System.out);
            System.exit(1);
        }
        virtual.shutdown();
        System.out.println("probe acquired=" + acquired.get() + " counter=" + counter[0]
                + " peakPlatformThreads=" + ManagementFactory.getThreadMXBean().getPeakThreadCount());
        System.exit(0);
    }
}
