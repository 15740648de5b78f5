package io.holdfast.bench;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one benchmark run does.
 *
 * @param jdbcUrl         the PostgreSQL database every library uses
 * @param rows            which rows to run: 1 uncontended, 2 contended hand-off, 3 many locks held
 * @param libraries       which libraries, in order: holdfast, shedlock, spring
 * @param warmup          warm-up before each measurement (discarded)
 * @param measure         measured time of rows 1 and 2, per library
 * @param maxOps          at most this many measured operations per library in rows 1 and 2
 * @param clients         client threads (each its own client instance) in row 2
 * @param shortLease      lease of the holds in rows 1 and 2 (long enough never to need renewal)
 * @param locks           locks held in row 3
 * @param hold            measured holding time of row 3, after the warm-up
 * @param renewedLease    lease of the holds in row 3; every library renews at a third of it
 * @param poll            retry interval of the incumbents' waiting (ShedLock's loop, Spring's idleBetweenTries)
 * @param acquireTimeout  longest any single acquire may wait before the row fails
 */
record Settings(String jdbcUrl, List<Integer> rows, List<String> libraries, Duration warmup, Duration measure, long maxOps,
                int clients, Duration shortLease, int locks, Duration hold, Duration renewedLease, Duration poll,
                Duration acquireTimeout) {

    static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    static final List<String> ALL_LIBRARIES = List.of("holdfast", "shedlock", "spring");

    Settings {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("the benchmark runs on PostgreSQL: give a jdbc:postgresql:// URL, got " + jdbcUrl);
        }
        rows = List.copyOf(rows);
        for (int row : rows) {
            if (row < 1 || row > 3) {
                throw new IllegalArgumentException("rows are 1, 2 and 3; got " + row);
            }
        }
        libraries = List.copyOf(libraries);
        for (String library : libraries) {
            if (!ALL_LIBRARIES.contains(library)) {
                throw new IllegalArgumentException("libraries are " + ALL_LIBRARIES + "; got " + library);
            }
        }
        requirePositive(measure, "measured time");
        requirePositive(hold, "holding time");
        requirePositive(poll, "poll interval");
        requirePositive(acquireTimeout, "acquire timeout");
        if (warmup.isNegative()) {
            throw new IllegalArgumentException("warm-up must not be negative");
        }
        if (maxOps < 1 || clients < 1 || clients > 64 || locks < 1 || locks > 100_000) {
            throw new IllegalArgumentException("need maxOps >= 1, 1 <= clients <= 64 and 1 <= locks <= 100000");
        }
        if (renewedLease.compareTo(Duration.ofMillis(300)) < 0) {
            throw new IllegalArgumentException("the renewed lease must be at least 300 ms, got " + renewedLease);
        }
    }

    private static void requirePositive(Duration d, String what) {
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(what + " must be positive, got " + d);
        }
    }

    /** The defaults of the command line: a full run of about two and a half minutes. */
    static Settings defaults() {
        return new Settings(DEFAULT_URL, List.of(1, 2, 3), ALL_LIBRARIES, Duration.ofSeconds(2), Duration.ofSeconds(5), 1_000_000,
                8, Duration.ofSeconds(30), 1000, Duration.ofSeconds(10), Duration.ofSeconds(3), Duration.ofMillis(10),
                Duration.ofSeconds(30));
    }
}
