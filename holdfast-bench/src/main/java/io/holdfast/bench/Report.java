package io.holdfast.bench;

import io.holdfast.Durations;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Renders one store's rows as Markdown: a header (date, load average at start and end, command line, server and
 * library versions, settings) and one table per shape. Each cell is the rounds' median (sums for overlaps, timed-out
 * waits and renewal failures, the lowest for locks held at the end); with several rounds the first column also shows
 * the lowest and highest round.
 */
final class Report {
    private Report() {
    }

    /** What a table row groups: one library at one case, over the rounds. */
    private record Key(RunSettings.Case c, String library) {
    }

    static String render(RunningStore store, RunSettings s, String commandLine, String loadAtStart, String startedAt, List<Runner.Row> rows) {
        StringBuilder md = new StringBuilder();
        md.append("### ").append(store.title()).append("\n\n");
        md.append("- Date: ").append(startedAt).append(" to ").append(now()).append("; load average at start ").append(loadAtStart)
                .append(", at end ").append(loadAverage()).append('\n');
        md.append("- Command: `").append(commandLine).append("`\n");
        md.append("- Server: ").append(store.server()).append('\n');
        md.append("- Machine: ").append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ").append(System.getProperty("java.version"))
                .append(" (").append(System.getProperty("java.vm.name")).append(")\n");
        md.append("- Settings: ").append(s.rounds()).append(s.rounds() == 1 ? " round" : " rounds, medians shown")
                .append("; per library and shape ").append(Durations.format(s.warmup())).append(" warm-up, then ").append(Durations.format(s.measure()))
                .append(" measured (at most ").append(s.maxAcquisitions()).append(" acquisitions); each acquire waits at most ")
                .append(Durations.format(s.acquireWait())).append("; holds last ").append(Durations.format(Runner.LEASE))
                .append(" (shape 5: ").append(Durations.format(s.lease())).append(", renewed)");
        if (s.shapes().stream().anyMatch(Shape::recipe)) {
            md.append("; recipe shapes (6 to 9): ").append(Durations.format(s.recipeMeasure())).append(" measured");
        }
        md.append('\n');
        if (!s.shapes().stream().allMatch(Shape::recipe)) {
            for (LockLibrary library : store.libraries()) {
                md.append("- ").append(library.name()).append(": ").append(library.howItIsUsed()).append('\n');
            }
        }
        for (RecipeLibrary recipe : store.recipes()) {
            if (s.shapes().contains(recipe.shape())) {
                md.append("- ").append(recipe.name()).append(": ").append(recipe.howItIsUsed()).append('\n');
            }
        }
        md.append('\n');
        Map<Key, List<Runner.Row>> byKey = new LinkedHashMap<>();
        for (Runner.Row row : rows) {
            byKey.computeIfAbsent(new Key(row.c(), row.library()), k -> new ArrayList<>()).add(row);
        }
        for (Shape shape : s.shapes()) {
            List<Key> keys = byKey.keySet().stream().filter(k -> k.c().shape() == shape).toList();
            if (!keys.isEmpty()) {
                table(md, shape, keys, byKey, s.rounds());
            }
        }
        return md.toString();
    }

    private static void table(StringBuilder md, Shape shape, List<Key> keys, Map<Key, List<Runner.Row>> byKey, int rounds) {
        Set<Column> columns = new LinkedHashSet<>();
        keys.forEach(k -> byKey.get(k).forEach(r -> columns.addAll(r.values().keySet())));
        String count = switch (shape) {
            case UNCONTENDED -> null;
            case OWN_NAMES, ONE_NAME, READ_WRITE, SEMAPHORE, MULTI -> "threads";
            case LEADER -> "candidates";
            case CLIENTS -> "clients";
            case MANY_HELD -> "locks";
        };
        md.append("#### ").append(shape.title).append("\n\n|");
        if (count != null) {
            md.append(' ').append(count).append(" |");
        }
        md.append(" library |");
        columns.forEach(c -> md.append(' ').append(c.header()).append(" |"));
        md.append("\n|").append(count != null ? "---:|" : "").append("---|").append("---:|".repeat(columns.size())).append('\n');
        for (Key key : keys) {
            List<Runner.Row> roundRows = byKey.get(key);
            md.append('|');
            if (count != null) {
                md.append(' ').append(key.c().n()).append(" |");
            }
            md.append(' ').append(key.library()).append(" |");
            String error = roundRows.stream().filter(r -> r.error() != null).map(r -> "failed in round " + r.round() + ": " + r.error())
                    .findFirst().orElse(null);
            if (error != null) {
                md.append(' ').append(error.replace('|', '/')).append(" |").append(" |".repeat(Math.max(0, columns.size() - 1))).append('\n');
                continue;
            }
            boolean first = true;
            for (Column c : columns) {
                double[] values = roundRows.stream().filter(r -> r.values().containsKey(c)).mapToDouble(r -> r.values().get(c)).toArray();
                md.append(' ').append(num(c.combine(values), c.decimals()));
                if (first && rounds > 1 && values.length > 1) {
                    md.append(" (").append(num(java.util.Arrays.stream(values).min().orElse(0), c.decimals())).append("–")
                            .append(num(java.util.Arrays.stream(values).max().orElse(0), c.decimals())).append(')');
                }
                md.append(" |");
                first = false;
            }
            md.append('\n');
        }
        md.append('\n');
    }

    static String num(double v, int decimals) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    static String now() {
        return ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
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
