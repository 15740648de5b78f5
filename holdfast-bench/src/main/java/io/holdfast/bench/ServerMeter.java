package io.holdfast.bench;

import java.util.List;

/**
 * The server-side cost counters of one running store (commands executed, messages, Raft proposals, server CPU),
 * read before and after each measured window; the runner reports their change per operation (or per second).
 */
interface ServerMeter {
    /** A store whose server the benchmark does not count. */
    ServerMeter NONE = new ServerMeter() {
        @Override
        public List<String> names() {
            return List.of();
        }

        @Override
        public double[] read() {
            return new double[0];
        }
    };

    /** What each counter counts, in {@link #read()}'s order, for the column headers ("Redis commands", "server CPU µs"). */
    List<String> names();

    /** Every counter's value now (cumulative since the server started). */
    double[] read() throws Exception;

    /** {@code after - before}, counter by counter. */
    static double[] delta(double[] before, double[] after) {
        double[] d = new double[after.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = after[i] - before[i];
        }
        return d;
    }
}
