package io.holdfast.bench.shared;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The shared-client rows, for any store: for each thread count, each library in turn opens one client, runs one
 * {@link SharedMeasurement} with that many threads sharing it on a fresh lock name, and closes it. Libraries run one
 * after the other, interleaved per thread count (all libraries for N = 1, then all for N = 8, ...), never two at once.
 */
final class SharedClientRunner {

    /**
     * @param threads         thread counts, in order
     * @param warmup          run before each measurement, not counted
     * @param measure         measured time per library and thread count
     * @param maxAcquisitions the measurement also ends after this many acquisitions
     * @param acquireWait     bound of every single acquire's wait; a wait that ends without the lock is counted, not fatal
     */
    record Settings(List<Integer> threads, Duration warmup, Duration measure, long maxAcquisitions, Duration acquireWait) {
        Settings {
            threads = List.copyOf(threads);
            if (threads.isEmpty() || threads.stream().anyMatch(n -> n < 1)) {
                throw new IllegalArgumentException("thread counts must be at least 1; got " + threads);
            }
            if (warmup.isNegative() || measure.isNegative() || measure.isZero() || acquireWait.isNegative() || acquireWait.isZero() || maxAcquisitions < 1) {
                throw new IllegalArgumentException("warm-up must be >= 0; measured time, wait and max acquisitions > 0");
            }
        }
    }

    /**
     * What one library did with {@code threads} threads on one client.
     *
     * @param acquisitions measured acquisitions (a thread re-taking the lock it just released counts)
     * @param handoffs     measured acquisitions by a different thread than the previous holder
     * @param seconds      measured time
     * @param waits        from asking for the lock until holding it, of each measured acquisition, in microseconds
     * @param fewest       fewest measured acquisitions any one thread got (fairness)
     * @param most         most measured acquisitions any one thread got
     * @param overlaps     acquisitions (warm-up included) that found another holder inside: must be 0
     * @param timeouts     measured waits that ended without the lock
     */
    record Result(int threads, long acquisitions, long handoffs, double seconds, Histogram waits, long fewest, long most,
                  long overlaps, long timeouts) {
        double acquisitionsPerSecond() {
            return acquisitions / seconds;
        }

        double handoffsPerSecond() {
            return handoffs / seconds;
        }
    }

    /** One table row: a result, or the error that stopped the measurement. */
    record Row(String library, int threads, Result result, String error) {
        boolean failed() {
            return error != null || result.overlaps() > 0;
        }
    }

    private final Settings settings;

    SharedClientRunner(Settings settings) {
        this.settings = Objects.requireNonNull(settings);
    }

    Settings settings() {
        return settings;
    }

    /** Runs every library at every thread count, reporting progress as it goes. */
    List<Row> run(List<SharedLockLibrary> libraries, Consumer<String> progress) {
        List<Row> rows = new ArrayList<>();
        for (int n : settings.threads()) {
            for (SharedLockLibrary library : libraries) {
                Row row = measure(library, n);
                rows.add(row);
                progress.accept(row.error() != null ? String.format("%s, %d threads: failed: %s", library.name(), n, row.error())
                        : String.format(java.util.Locale.ROOT, "%s, %d threads: %.0f acquisitions/s, %.0f hand-offs/s, fewest per thread %d, overlaps %d",
                        library.name(), n, row.result().acquisitionsPerSecond(), row.result().handoffsPerSecond(), row.result().fewest(),
                        row.result().overlaps()));
            }
        }
        return rows;
    }

    private Row measure(SharedLockLibrary library, int threads) {
        String lockName = "shared-" + threads + "-" + UUID.randomUUID().toString().substring(0, 8);
        try (Locker locker = library.open()) {
            return new Row(library.name(), threads, new SharedMeasurement(locker, lockName, threads, settings).run(), null);
        } catch (Exception e) {
            return new Row(library.name(), threads, null, String.valueOf(e.getMessage() == null ? e : e.getMessage()).replace('\n', ' '));
        }
    }
}
