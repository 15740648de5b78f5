package io.holdfast.redis;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counts, in this process, the acquire script calls of every Redis store by what caused them, so tests
 * and benchmarks can say how many script calls a hand-off costs: a first attempt (no wake-up watch for the
 * name yet, as for {@code tryAcquire()} or the first try of a wait), an attempt after a wake-up reached this
 * client, or a poll (a waiter's periodic re-check, with no wake-up since its last attempt).
 */
final class AttemptCounters {
    static final LongAdder FIRST = new LongAdder();
    static final LongAdder WOKEN = new LongAdder();
    static final LongAdder POLLED = new LongAdder();
    static final LongAdder WAKE_UPS_DELIVERED = new LongAdder();

    private AttemptCounters() {
    }

    /**
     * A snapshot: {first, woken, polled, wake-ups delivered, acquire calls, release calls, renew calls, calls
     * repeated with the script's source after NOSCRIPT}.
     */
    static long[] snapshot() {
        return new long[] {FIRST.sum(), WOKEN.sum(), POLLED.sum(), WAKE_UPS_DELIVERED.sum(), LuaScript.ACQUIRE.calls.sum(),
            LuaScript.RELEASE.calls.sum(), LuaScript.RENEW.calls.sum(), LuaScript.RELOADS.sum()};
    }
}
