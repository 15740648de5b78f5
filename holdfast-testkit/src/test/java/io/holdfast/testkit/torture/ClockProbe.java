package io.holdfast.testkit.torture;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Run by {@link ClockSkewTest} in a child JVM: prints its wall clock and monotonic clock, then how long
 * (by the monotonic clock) each kind of timed wait of 200 ms took.
 */
public final class ClockProbe {
    private ClockProbe() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("wall " + System.currentTimeMillis() + " instant " + RunClock.wallClockMicros() + " nanos " + System.nanoTime());
        long t0 = System.nanoTime();
        Thread.sleep(200);
        long t1 = System.nanoTime();
        LockSupport.parkNanos(200_000_000L);
        long t2 = System.nanoTime();
        Object o = new Object();
        synchronized (o) {
            o.wait(200);
        }
        long t3 = System.nanoTime();
        new java.util.concurrent.LinkedBlockingQueue<>().poll(200, TimeUnit.MILLISECONDS);
        long t4 = System.nanoTime();
        System.out.println("waits " + (t1 - t0) / 1_000_000 + " " + (t2 - t1) / 1_000_000 + " " + (t3 - t2) / 1_000_000 + " " + (t4 - t3) / 1_000_000);
    }
}
