package io.holdfast.testkit.torture;

import io.holdfast.testkit.torture.TortureResult.FaultWindow;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The files of a run's report directory that are not reports: the merged history ({@code history.tsv}), the
 * faults ({@code faults.tsv}), the clearing of an earlier run's per-client files, and a log's last lines.
 */
final class RunFiles {
    private RunFiles() {
    }

    /** Deletes the files of {@code dir} matching {@code glob}: what an earlier run left. */
    static void clearOldRun(Path dir, String glob) throws IOException {
        try (DirectoryStream<Path> old = Files.newDirectoryStream(dir, glob)) {
            for (Path p : old) {
                Files.delete(p);
            }
        }
    }

    /** Every event of every client, in time order, one tab-separated line each. */
    static void writeMergedHistory(Path file, List<Event> events) throws IOException {
        StringBuilder b = new StringBuilder("# micros\tclient\tincarnation\top\ttype\ttoken\tvalue\tdetail\n");
        for (Event e : events) {
            b.append(e.toLine()).append('\n');
        }
        Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
    }

    /** Every fault, injected or skipped, with its window, target, detail and partition sides. */
    static void writeFaults(Path file, List<FaultWindow> faults) throws IOException {
        StringBuilder b = new StringBuilder("# start_micros\tend_micros\tfault\ttarget\theld_token\tdetail\tskipped_because\t"
                + "sides (a partition's members: cut-off side | the rest, or sending side -> receiving side for a one-way one; cN is client N, sN server N)\n");
        for (FaultWindow f : faults) {
            b.append(f.startMicros()).append('\t').append(f.endMicros()).append('\t').append(f.fault().label()).append('\t')
                    .append(f.target()).append('\t').append(f.heldToken()).append('\t').append(Event.clean(f.detail())).append('\t')
                    .append(f.skipReason() == null ? "" : Event.clean(f.skipReason())).append('\t').append(f.sides()).append('\n');
        }
        Files.writeString(file, b.toString(), StandardCharsets.UTF_8);
    }

    /** The last 40 lines of a log, or why there are none. */
    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
