package io.holdfast.spring;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded waits for something another thread does. */
final class Await {
    private Await() {
    }

    /** Whether {@code condition} held within {@code limit}, checked every 20 ms. */
    static boolean within(Duration limit, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }
}
