package io.holdfast.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One column of a shape's table, and how its values of several rounds become the one shown: the median, or for
 * counts of things that must not happen (overlaps, timed-out waits, lost holds) the sum or the worst.
 *
 * @param header   the column's heading
 * @param decimals shown after the point
 * @param combine  how rounds combine
 */
record Column(String header, int decimals, Combine combine) {

    enum Combine { MEDIAN, SUM, MIN }

    static Column median(String header, int decimals) {
        return new Column(header, decimals, Combine.MEDIAN);
    }

    static Column sum(String header) {
        return new Column(header, 0, Combine.SUM);
    }

    static Column min(String header) {
        return new Column(header, 0, Combine.MIN);
    }

    /** The value shown for this column's values of several rounds (NaN for none). */
    double combine(double[] rounds) {
        if (rounds.length == 0) {
            return Double.NaN;
        }
        return switch (combine) {
            case SUM -> Arrays.stream(rounds).sum();
            case MIN -> Arrays.stream(rounds).min().orElse(Double.NaN);
            case MEDIAN -> median(rounds);
        };
    }

    /** The median (the mean of the middle two for an even count). */
    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The server's counters as columns, each divided by {@code per} ({@code unit}: "op", "acquisition", "s"). */
    static Map<Column, Double> server(List<String> names, double[] deltas, double per, String unit) {
        Map<Column, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            m.put(median(names.get(i) + " / " + unit, names.get(i).contains("µs") ? 0 : 2), per > 0 ? deltas[i] / per : Double.NaN);
        }
        return m;
    }
}
