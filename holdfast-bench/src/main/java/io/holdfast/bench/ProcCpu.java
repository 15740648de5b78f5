package io.holdfast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;

/**
 * CPU time (user + system) of server processes on this machine, read from {@code /proc/PID/stat}: the etcd members
 * the benchmark started, the PostgreSQL backends of the benchmark's connections. Linux counts it in ticks of 10 ms,
 * so small values are coarse.
 */
final class ProcCpu {
    /** Linux reports utime and stime in USER_HZ ticks, 100 per second on every mainstream architecture. */
    private static final double MICROS_PER_TICK = 10_000;

    private ProcCpu() {
    }

    /** CPU time so far of every process of {@code pids} that can be read (one that cannot counts 0), in µs. */
    static double micros(Collection<? extends Number> pids) {
        double sum = 0;
        for (Number pid : pids) {
            sum += micros(pid.longValue());
        }
        return sum;
    }

    private static double micros(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // Fields after "(comm)": state is field 3, utime field 14, stime field 15.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return (Long.parseLong(fields[14 - 3]) + Long.parseLong(fields[15 - 3])) * MICROS_PER_TICK;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
