package io.holdfast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * CPU time the PostgreSQL server spent on given connections, read from {@code /proc/PID/stat} of their
 * server processes (PostgreSQL runs one process per connection). Works only when the server runs on
 * this machine (loopback) and {@code /proc} shows its processes; otherwise {@link #available()} is false.
 */
final class ServerCpu {
    /** Linux reports utime and stime in USER_HZ ticks, 100 per second on every mainstream architecture. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private ServerCpu() {
    }

    /** True if the server processes of {@code pids} can be read here. */
    static boolean available(Set<Integer> pids) {
        if (pids.isEmpty()) {
            return false;
        }
        for (int pid : pids) {
            if (cpuNanos(pid).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** CPU time (user + system) so far of each process that can be read. */
    static Map<Integer, Long> read(Set<Integer> pids) {
        Map<Integer, Long> cpu = new HashMap<>();
        for (int pid : pids) {
            cpuNanos(pid).ifPresent(n -> cpu.put(pid, n));
        }
        return cpu;
    }

    /**
     * CPU spent between two readings: for each process in {@code after}, its time minus its time in
     * {@code before} (or all of it, if it started in between).
     */
    static long spentNanos(Map<Integer, Long> before, Map<Integer, Long> after) {
        long sum = 0;
        for (Map.Entry<Integer, Long> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }

    private static OptionalLong cpuNanos(int pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"));
            int close = stat.lastIndexOf(')');
            if (close < 0) {
                return OptionalLong.empty();
            }
            // Fields after "(comm)": state is field 3, utime field 14, stime field 15.
            String[] fields = stat.substring(close + 2).trim().split(" ");
            long ticks = Long.parseLong(fields[14 - 3]) + Long.parseLong(fields[15 - 3]);
            return OptionalLong.of(ticks * NANOS_PER_TICK);
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }
}
