package io.holdfast.testkit.torture;

import java.time.Instant;

/**
 * The clock of a run's histories: the machine's monotonic clock ({@link System#nanoTime()}, on Linux
 * {@code CLOCK_MONOTONIC}, one clock for every process of the machine, whatever its namespace), read as
 * microseconds since the epoch from an origin the runner takes once from its own wall clock and hands to
 * every client process ({@code --clock-origin}). A client whose wall clock is skewed on purpose
 * ({@link ClockSkew}) or stepped by NTP still writes its events on the runner's time line, so the histories
 * of different processes compare. Only the monotonic clock has to be honest: libfaketime leaves it alone
 * with {@code FAKETIME_DONT_FAKE_MONOTONIC=1}.
 */
final class RunClock {
    private static volatile long originMicros;
    private static volatile long originNanos;

    static {
        long nanos = System.nanoTime();
        originMicros = wallClockMicros();
        originNanos = nanos;
    }

    private RunClock() {
    }

    /** Now, in microseconds since the epoch on the run's time line. */
    static long now() {
        return originMicros + Math.floorDiv(System.nanoTime() - originNanos, 1_000L);
    }

    /** This JVM's origin, {@code MICROS:NANOS}, for a client's {@code --clock-origin}. */
    static String origin() {
        return originMicros + ":" + originNanos;
    }

    /** Takes the runner's origin ({@link #origin()}), so this process's events share its time line. */
    static void adopt(String origin) {
        String[] f = origin.split(":");
        if (f.length != 2) {
            throw new IllegalArgumentException("clock origin '" + origin + "' is not allowed; allowed: MICROS:NANOS");
        }
        originNanos = Long.parseLong(f[1]);
        originMicros = Long.parseLong(f[0]);
    }

    /** This process's wall clock, in microseconds since the epoch (skewed, if libfaketime skews it). */
    static long wallClockMicros() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
    }
}
