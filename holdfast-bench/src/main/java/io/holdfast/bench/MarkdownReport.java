package io.holdfast.bench;

import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** Renders a {@link Benchmark.Report} as Markdown tables. */
final class MarkdownReport {
    private MarkdownReport() {
    }

    static String render(Benchmark.Report report, String machine) {
        Settings s = report.settings();
        StringBuilder out = new StringBuilder();
        out.append("Server: ").append(report.server()).append(" at ").append(redact(s.jdbcUrl())).append("  \n");
        out.append("Machine: ").append(machine).append("  \n");
        out.append("Settings: warm-up ").append(Pools.format(s.warmup())).append(", measured ").append(Pools.format(s.measure()))
                .append(" per library (rows 1-2, at most ").append(s.maxOps()).append(" ops), ").append(s.clients())
                .append(" clients in row 2, ").append(s.locks()).append(" locks held for ").append(Pools.format(s.hold()))
                .append(" with a ").append(Pools.format(s.renewedLease())).append(" lease in row 3, incumbents poll every ")
                .append(Pools.format(s.poll())).append(".\n\n");

        if (!report.uncontended().isEmpty()) {
            out.append("### 1. Uncontended acquire + release (1 client thread)\n\n");
            table(out, List.of("library", "ops/s", "p50 µs", "p99 µs", "DB round trips / op", "µs in JDBC calls / op"), report.uncontended(),
                    r -> List.of(num(r.opsPerSecond(), 0), micros(r.latency(), 50), micros(r.latency(), 99),
                            num((double) r.roundTrips() / Math.max(1, r.ops()), 2), num(r.nanosInJdbc() / 1e3 / Math.max(1, r.ops()), 0)));
        }
        if (!report.contended().isEmpty()) {
            out.append("### 2. Contended hand-off (").append(s.clients()).append(" clients, one lock)\n\n");
            table(out, List.of("library", "hand-offs/s", "acquisitions/s", "p50 wait ms", "p99 wait ms", "DB round trips / acquisition",
                    "overlapping holders"), report.contended(), r -> List.of(
                    num(r.handoffsPerSecond(), 0), num(r.acquisitionsPerSecond(), 0), millis(r.waitTime(), 50), millis(r.waitTime(), 99),
                    num((double) r.roundTrips() / Math.max(1, r.acquisitions()), 1), Long.toString(r.overlaps())));
        }
        if (!report.manyHeld().isEmpty()) {
            out.append("### 3. Many locks held (").append(s.locks()).append(" locks, lease ").append(Pools.format(s.renewedLease()))
                    .append(", renewed every lease/3)\n\n");
            table(out, List.of("library", "time to take all (s)", "held at end", "renewal failures", "DB round trips / s",
                    "client ms in JDBC calls / s", "client CPU ms / s", "server CPU ms / s"), report.manyHeld(), r -> List.of(
                    num(r.takeSeconds(), 2), r.heldAtEnd() + " / " + r.locks(), Integer.toString(r.renewalFailures()),
                    num(r.perSecond(r.roundTrips()), 1), num(r.perSecond(r.nanosInJdbc()) / 1e6, 1),
                    num(r.perSecond(r.clientCpuNanos()) / 1e6, 1),
                    r.serverCpuNanos() == null ? "n/a" : num(r.perSecond(r.serverCpuNanos()) / 1e6, 1)));
        }
        out.append("How each library was driven:\n\n");
        for (Contender c : report.contenders().values()) {
            out.append("- ").append(c.name()).append(": waits by ").append(c.howItWaits()).append("; renews by ")
                    .append(c.howItRenews()).append(".\n");
        }
        return out.toString();
    }

    private static <R> void table(StringBuilder out, List<String> headers, List<Benchmark.Outcome<R>> rows, Function<R, List<String>> cells) {
        out.append("| ").append(String.join(" | ", headers)).append(" |\n");
        out.append("|---").append("|---:".repeat(headers.size() - 1)).append("|\n");
        for (Benchmark.Outcome<R> o : rows) {
            out.append("| ").append(o.library()).append(" | ");
            if (o.error() != null) {
                out.append("failed: ").append(o.error().replace('|', '/').replace('\n', ' '))
                        .append(" |".repeat(headers.size() - 1)).append("\n");
            } else {
                out.append(String.join(" | ", cells.apply(o.result()))).append(" |\n");
            }
        }
        out.append('\n');
    }

    private static String micros(Histogram h, double percentile) {
        return num(h.getValueAtPercentile(percentile) / 1e3, 0);
    }

    private static String millis(Histogram h, double percentile) {
        return num(h.getValueAtPercentile(percentile) / 1e6, 2);
    }

    private static String num(double v, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    /** The URL without a password parameter. */
    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***");
    }
}
