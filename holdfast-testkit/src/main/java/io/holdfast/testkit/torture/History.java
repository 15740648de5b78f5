package io.holdfast.testkit.torture;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Histories on disk: each client process appends its events to a file of its own
 * ({@code client-C-I.tsv} for client C, incarnation I), one write per line, so everything it recorded
 * before a SIGKILL is in the file; the runner merges them afterwards.
 */
final class History {
    private History() {
    }

    static Path fileOf(Path dir, int client, int incarnation) {
        return dir.resolve("client-" + client + "-" + incarnation + ".tsv");
    }

    /**
     * Appends events of one client process, or of one of its threads ({@link #forThread}). Thread-safe (the
     * lost-hold listener records from its own thread; the threads of one process share the file).
     */
    static final class Writer implements AutoCloseable {
        private final FileOutputStream out;
        private final int client;
        private final int incarnation;
        private final int thread;

        Writer(Path file, int client, int incarnation) throws IOException {
            this(new FileOutputStream(file.toFile(), true), client, incarnation, 0);
        }

        private Writer(FileOutputStream out, int client, int incarnation, int thread) {
            this.out = out;
            this.client = client;
            this.incarnation = incarnation;
            this.thread = thread;
        }

        /** A writer to the same file whose events name thread {@code t} (1 to N) of this process. */
        Writer forThread(int t) {
            return new Writer(out, client, incarnation, t);
        }

        /** Records an event now and returns its time. */
        long record(String op, String type, long token, long value, String detail) {
            return recordAt(Event.now(), op, type, token, value, detail);
        }

        /** Records an event with the time {@code micros} taken before it happened. */
        long recordAt(long micros, String op, String type, long token, long value, String detail) {
            write(new Event(micros, client, incarnation, op, type, token, value, detail, thread));
            return micros;
        }

        void write(Event e) {
            synchronized (out) {
                try {
                    out.write((e.toLine() + "\n").getBytes(StandardCharsets.UTF_8)); // one write(2): survives SIGKILL
                } catch (IOException ex) {
                    throw new UncheckedIOException("cannot write the history", ex);
                }
            }
        }

        @Override
        public void close() throws IOException {
            synchronized (out) {
                out.close();
            }
        }
    }

    /**
     * Every event of every client file in {@code dir}, in time order (events of one process keep their
     * file order when times tie). Incomplete lines are skipped.
     */
    static List<Event> readAll(Path dir) throws IOException {
        List<Event> all = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "client-*.tsv")) {
            for (Path f : files) {
                for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                    Event e = Event.parse(line);
                    if (e != null) {
                        all.add(e);
                    }
                }
            }
        }
        all.sort(Comparator.comparingLong(Event::micros)); // stable: ties keep file order
        return all;
    }
}
