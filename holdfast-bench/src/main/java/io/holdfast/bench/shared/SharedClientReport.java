package io.holdfast.bench.shared;

import io.holdfast.Durations;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/** Renders one store's shared-client rows as a Markdown table with the run's date, load, command line and versions. */
final class SharedClientReport {
    private SharedClientReport() {
    }

    static String render(RunningStore store, SharedClientRunner.Settings s, String commandLine, String loadAtStart, List<SharedClientRunner.Row> rows) {
        StringBuilder md = new StringBuilder();
        md.append("### ").append(store.title()).append(": N threads of one process sharing one client, one lock name\n\n");
        md.append("- Date: ").append(ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME))
                .append("; load average at start ").append(loadAtStart).append(", at end ").append(loadAverage()).append('\n');
        md.append("- Command: `").append(commandLine).append("`\n");
        md.append("- Server: ").append(store.server()).append('\n');
        md.append("- Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ").append(System.getProperty("java.version"))
                .append(" (").append(System.getProperty("java.vm.name")).append(")\n");
        md.append("- Settings: per library and thread count ").append(Durations.format(s.warmup())).append(" warm-up, then ")
                .append(Durations.format(s.measure())).append(" measured (at most ").append(s.maxAcquisitions())
                .append(" acquisitions); each acquire waits at most ").append(Durations.format(s.acquireWait())).append('\n');
        for (SharedLockLibrary library : store.libraries()) {
            md.append("- ").append(library.name()).append(": ").append(library.howItIsUsed()).append('\n');
        }
        md.append('\n');
        md.append("| threads | library | acquisitions/s | hand-offs/s | wait p50 ms | wait p99 ms | fewest / most per thread | timed-out waits | overlaps |\n");
        md.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (SharedClientRunner.Row row : rows) {
            md.append("| ").append(row.threads()).append(" | ").append(row.library()).append(" | ");
            if (row.error() != null) {
                md.append("failed: ").append(row.error().replace('|', '/')).append(" |".repeat(7)).append('\n');
                continue;
            }
            SharedClientRunner.Result r = row.result();
            md.append(num(r.acquisitionsPerSecond(), 0)).append(" | ").append(num(r.handoffsPerSecond(), 0)).append(" | ")
                    .append(num(r.waits().getValueAtPercentile(50) / 1e3, 2)).append(" | ").append(num(r.waits().getValueAtPercentile(99) / 1e3, 2))
                    .append(" | ").append(r.fewest()).append(" / ").append(r.most()).append(" | ").append(r.timeouts()).append(" | ")
                    .append(r.overlaps()).append(" |\n");
        }
        md.append('\n');
        return md.toString();
    }

    private static String num(double v, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
