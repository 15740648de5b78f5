package io.holdfast.testkit.torture;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker on hand-made histories of read-write lock runs (a write beside anyone is a violation, reads share) and
 * leader runs (two leaders at once, or one term twice, are): each test builds the holds of two or three client
 * processes, each acquire event saying what it took.
 */
class RecipeCheckTest {
    private static final long T0 = 1_700_000_000_000_000L;
    private final List<Event> events = new ArrayList<>();

    /** A hold of {@code kind} ({@code read}, {@code write}, {@code leader}) from {@code from} to {@code to} ms. */
    private void hold(int client, long token, long from, long to, String kind) {
        events.add(new Event(T0 + (from - 1) * 1_000, client, 1, Event.OP_ACQUIRE, Event.INVOKE, 0, 0, ""));
        events.add(new Event(T0 + from * 1_000, client, 1, Event.OP_ACQUIRE, Event.OK, token, 0, kind));
        events.add(new Event(T0 + to * 1_000, client, 1, Event.OP_RELEASE, Event.INVOKE, token, 0, ""));
        events.add(new Event(T0 + (to + 1) * 1_000, client, 1, Event.OP_RELEASE, Event.OK, token, 0, ""));
    }

    private void lost(int client, long token, long at) {
        events.add(new Event(T0 + at * 1_000, client, 1, Event.OP_LOST, Event.OK, token, 0, "expired"));
    }

    private Checker.Analysis check(TortureSettings.Recipe recipe) {
        events.sort(java.util.Comparator.comparingLong(Event::micros));
        TortureSettings settings = TortureSettings.builder("sqlite:x.db").clients(3).duration(Duration.ofSeconds(10))
                .lease(Duration.ofSeconds(2)).reportDir(Path.of("unused")).recipe(recipe).build();
        return Checker.check("test store", settings, T0, T0 + 10_000_000, events, List.of(), List.of(), new long[] {0, 0, 0});
    }

    @Test
    void readersShareAndAWriterBesideAReaderOrAWriterIsAViolation() {
        hold(1, 10, 100, 400, "read");
        hold(2, 11, 200, 500, "read");      // two readers: allowed
        hold(3, 12, 300, 350, "write");     // a writer inside both reads: two violations
        hold(1, 13, 600, 800, "write");
        hold(2, 14, 700, 900, "write");     // two writers: one violation

        Checker.Analysis a = check(TortureSettings.Recipe.READ_WRITE);

        assertThat(a.violations()).extracting(o -> List.of(o.tokenA(), o.tokenB()))
                .containsExactlyInAnyOrder(List.of(10L, 12L), List.of(11L, 12L), List.of(13L, 14L));
        assertThat(TextReport.exclusion(a.settings())).isEqualTo("no writer with anyone (read-write lock)");
    }

    @Test
    void aWriteBesideAReadReportedLostIsStaleNotAViolation() {
        hold(1, 10, 100, 400, "read");
        lost(1, 10, 250);
        hold(2, 11, 300, 500, "write");

        Checker.Analysis a = check(TortureSettings.Recipe.READ_WRITE);

        assertThat(a.violations()).isEmpty();
        assertThat(a.staleOverlaps()).extracting(o -> List.of(o.tokenA(), o.tokenB())).containsExactly(List.of(10L, 11L));
    }

    @Test
    void withTheLockTheSameHistoryOfReadsIsAViolation() {
        hold(1, 10, 100, 400, "read");
        hold(2, 11, 200, 500, "read");

        assertThat(check(TortureSettings.Recipe.READ_WRITE).violations()).as("as a read-write lock").isEmpty();
        assertThat(check(TortureSettings.Recipe.LOCK).violations()).as("as a lock").hasSize(1);
    }

    @Test
    void twoLeadersAtOnceAreAViolationAndOneTermTwiceIsATokenViolation() {
        hold(1, 10, 100, 400, "leader");
        hold(2, 11, 300, 500, "leader");    // overlaps the first leadership
        hold(3, 11, 600, 700, "leader");    // the same term again

        Checker.Analysis a = check(TortureSettings.Recipe.LEADER);

        assertThat(a.violations()).extracting(o -> List.of(o.tokenA(), o.tokenB())).containsExactly(List.of(10L, 11L));
        assertThat(a.tokenViolations()).isNotEmpty();
        assertThat(TextReport.exclusion(a.settings())).isEqualTo("one leader at a time");
    }
}
