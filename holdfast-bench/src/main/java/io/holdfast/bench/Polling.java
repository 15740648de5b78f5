package io.holdfast.bench;

import java.time.Duration;

/** The harness's waiting for a lock that cannot wait by itself (ShedLock, the floors): one attempt every poll interval. */
final class Polling {
    private Polling() {
    }

    /** One attempt at taking a lock: what releases it, or null if it is held elsewhere. */
    interface Attempt {
        Object tryOnce() throws Exception;
    }

    /** Attempts at once, then every {@code poll} until an attempt succeeds or {@code wait} is over (zero: one attempt). */
    static Object retry(Attempt attempt, Duration wait, Duration poll) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Object held = attempt.tryOnce();
            if (held != null) {
                return held;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            Thread.sleep(Math.max(1, Math.min(poll.toMillis(), left / 1_000_000)));
        }
    }
}
