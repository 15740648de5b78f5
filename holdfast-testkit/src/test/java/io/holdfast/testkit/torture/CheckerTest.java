package io.holdfast.testkit.torture;

import io.holdfast.testkit.torture.TortureResult.FaultWindow;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker on small hand-made histories whose anomalies are known: each test builds the events two
 * client processes would have written and checks what the checker finds in them.
 */
class CheckerTest {
    private static final long T0 = 1_700_000_000_000_000L;
    private final List<Event> events = new ArrayList<>();

    private static TortureSettings settings() {
        return settings(1);
    }

    private static TortureSettings settings(int permits) {
        return TortureSettings.builder("sqlite:x.db").clients(2).duration(Duration.ofSeconds(10)).lease(Duration.ofSeconds(2))
                .reportDir(Path.of("unused")).permits(permits).build();
    }

    private void at(long ms, int client, String op, String type, long token, long value) {
        events.add(new Event(T0 + ms * 1_000, client, 1, op, type, token, value, ""));
    }

    /** A whole round: acquire at {@code from}, read {@code read}, write read+1 to every counter, release at {@code to}. */
    private void round(int client, long token, long from, long to, long read) {
        at(from - 1, client, Event.OP_ACQUIRE, Event.INVOKE, 0, 0);
        at(from, client, Event.OP_ACQUIRE, Event.OK, token, 0);
        at(from + 1, client, Event.OP_CLAIM, Event.OK, token, 0);
        for (Register.Kind k : Register.Kind.ALL) {
            at(from + 2, client, k.readOp(), Event.OK, token, read);
            at(to - 2, client, k.writeOp(), Event.INVOKE, token, read + 1);
            at(to - 1, client, k.writeOp(), Event.OK, token, read + 1);
        }
        at(to, client, Event.OP_RELEASE, Event.INVOKE, token, 0);
        at(to + 1, client, Event.OP_RELEASE, Event.OK, token, 0);
    }

    private Checker.Analysis check(long... finals) {
        return checkWithPermits(1, finals);
    }

    private Checker.Analysis checkWithPermits(int permits, long... finals) {
        events.sort(java.util.Comparator.comparingLong(Event::micros));
        return Checker.check("test store", settings(permits), T0, T0 + 10_000_000, events, List.of(), List.of(), finals);
    }

    @Test
    void aCleanAlternationHasNoAnomaly() {
        round(1, 10, 100, 200, 0);
        round(2, 11, 300, 400, 1);
        round(1, 12, 500, 600, 2);

        Checker.Analysis a = check(3, 3, 3);

        assertThat(a.holds()).hasSize(3);
        assertThat(a.violations()).isEmpty();
        assertThat(a.staleOverlaps()).isEmpty();
        assertThat(a.tokenViolations()).isEmpty();
        assertThat(a.registers()).allSatisfy(r -> {
            assertThat(r.writesOk()).isEqualTo(3);
            assertThat(r.lostUpdates()).isZero();
            assertThat(r.staleWrites()).isEmpty();
            assertThat(r.unexplained()).isZero();
        });
        assertThat(a.acquisitionsPerSecond()[0]).isEqualTo(3);
    }

    @Test
    void twoHoldsNeitherReportedLostThatOverlapAreAViolation() {
        round(1, 10, 100, 400, 0);
        round(2, 11, 200, 500, 0); // inside client 1's hold, and it wrote the same value: a lost update too

        Checker.Analysis a = check(1, 1, 1);

        assertThat(a.violations()).hasSize(1);
        TortureResult.HoldOverlap o = a.violations().get(0);
        assertThat(List.of(o.clientA(), o.clientB())).containsExactly("1.1", "2.1");
        assertThat(o.startMicros()).isEqualTo(T0 + 200_000);
        assertThat(o.endMicros()).isEqualTo(T0 + 400_000);
        assertThat(a.registers()).allSatisfy(r -> {
            assertThat(r.lostUpdates()).isEqualTo(1);
            assertThat(r.staleWrites()).hasSize(1);
        });
    }

    @Test
    void anOverlapWithAHoldReportedLostIsCountedApartNotAsAViolation() {
        round(1, 10, 100, 4_000, 0);            // paused: its hold runs on long after its lease
        at(3_900, 1, Event.OP_LOST, Event.OK, 10, 0);
        round(2, 11, 2_500, 2_600, 0);

        Checker.Analysis a = check(1, 1, 1);

        assertThat(a.violations()).isEmpty();
        assertThat(a.staleOverlaps()).hasSize(1);
        assertThat(a.holdsReportedLost()).isEqualTo(1);
    }

    @Test
    void anOverlapWithAHolderFrozenForALeaseAndNeverToldIsAnUnreportedLossNotAnExclusionViolation() {
        round(1, 10, 100, 4_000, 0);     // paused from 150 ms to 3,900 ms, then released normally: never told
        round(2, 11, 2_500, 2_600, 0);   // acquired 2.35 s into the pause (lease 2 s): the store was right
        round(2, 12, 3_950, 4_100, 1);   // after the pause, while client 1's stale hold still ran: the same loss
        round(3, 13, 4_500, 4_600, 2);   // client 3: no overlap at all
        FaultWindow pause = new FaultWindow(Fault.PAUSE, T0 + 150_000, T0 + 3_900_000, "client 1", 10, "SIGSTOP", null);
        events.sort(java.util.Comparator.comparingLong(Event::micros));

        Checker.Analysis a = Checker.check("test store", settings(), T0, T0 + 10_000_000, events, List.of(), List.of(pause),
                new long[] {3, 3, 3});

        assertThat(a.unreportedLosses()).extracting(TortureResult.HoldOverlap::tokenB).containsExactly(11L, 12L);
        assertThat(a.violations()).isEmpty();
    }

    @Test
    void anOverlapInsideTheFirstLeaseOfAPauseIsStillAViolation() {
        round(1, 10, 100, 4_000, 0);
        round(2, 11, 1_000, 1_100, 0);   // only 0.85 s into the pause: the store freed a lease still in force
        FaultWindow pause = new FaultWindow(Fault.PAUSE, T0 + 150_000, T0 + 3_900_000, "client 1", 10, "SIGSTOP", null);
        events.sort(java.util.Comparator.comparingLong(Event::micros));

        Checker.Analysis a = Checker.check("test store", settings(), T0, T0 + 10_000_000, events, List.of(), List.of(pause),
                new long[] {1, 1, 1});

        assertThat(a.violations()).hasSize(1);
        assertThat(a.unreportedLosses()).isEmpty();
    }

    @Test
    void aReleaseThatSaysLostAlsoMarksTheHoldLost() {
        round(1, 10, 100, 4_000, 0);
        events.removeIf(e -> e.client() == 1 && e.is(Event.OP_RELEASE, Event.OK));
        at(4_001, 1, Event.OP_RELEASE, Event.FAIL, 10, 0);
        round(2, 11, 2_500, 2_600, 0);

        Checker.Analysis a = check(1, 1, 1);

        assertThat(a.violations()).isEmpty();
        assertThat(a.staleOverlaps()).hasSize(1);
    }

    @Test
    void aTokenBelowOneIssuedBeforeTheAcquireBeganIsAViolationAndSoIsARepeatedToken() {
        round(1, 10, 100, 200, 0);
        round(2, 9, 300, 400, 1);
        round(1, 9, 500, 600, 2);

        Checker.Analysis a = check(3, 3, 3);

        assertThat(a.tokenViolations()).extracting(TortureResult.TokenViolation::what)
                .anySatisfy(w -> assertThat(w).contains("token 9 is not above token 10"))
                .anySatisfy(w -> assertThat(w).contains("token 9 was issued twice"));
    }

    @Test
    void concurrentAcquisitionsMayGetTokensInEitherOrder() {
        // Both acquires are in flight at once (invoke 1 at 99, ok at 100; invoke 2 at 50, ok at 300).
        round(1, 11, 100, 200, 0);
        events.removeIf(e -> e.client() == 2);
        at(50, 2, Event.OP_ACQUIRE, Event.INVOKE, 0, 0);
        at(300, 2, Event.OP_ACQUIRE, Event.OK, 10, 0);
        at(301, 2, Event.OP_RELEASE, Event.INVOKE, 10, 0);
        at(302, 2, Event.OP_RELEASE, Event.OK, 10, 0);

        Checker.Analysis a = check(1, 1, 1);

        assertThat(a.tokenViolations()).isEmpty();
    }

    @Test
    void aWriteWhoseProcessDiedBeforeItCompletedIsUnknownNotLost() {
        round(1, 10, 100, 200, 0);
        at(299, 2, Event.OP_ACQUIRE, Event.INVOKE, 0, 0);
        at(300, 2, Event.OP_ACQUIRE, Event.OK, 11, 0);
        at(301, 2, Register.Kind.FENCED.writeOp(), Event.INVOKE, 11, 2);
        // client 2 killed here: no completion, no release

        Checker.Analysis a = check(2, 1, 1);

        TortureResult.RegisterOutcome fenced = a.registers().get(0);
        assertThat(fenced.writesOk()).isEqualTo(1);
        assertThat(fenced.writesIndeterminate()).isEqualTo(1);
        assertThat(fenced.lostUpdates()).isZero();
        assertThat(fenced.unexplained()).isZero();
        assertThat(a.holds()).filteredOn(s -> s.client == 2).singleElement().satisfies(s -> assertThat(s.endedByDeath).isTrue());
    }

    @Test
    void aFinalValueAboveEveryPossibleWriteIsUnexplained() {
        round(1, 10, 100, 200, 0);

        Checker.Analysis a = check(5, 1, 1);

        assertThat(a.registers().get(0).unexplained()).isEqualTo(4);
    }

    @Test
    void anomaliesAreAttributedToTheFaultWindowTheyFollow() {
        round(1, 10, 100, 4_000, 0);
        at(3_900, 1, Event.OP_LOST, Event.OK, 10, 0);
        round(2, 11, 2_500, 2_600, 0);
        FaultWindow pause = new FaultWindow(Fault.PAUSE, T0 + 150_000, T0 + 3_650_000, "client 1", 10, "SIGSTOP", null);
        events.sort(java.util.Comparator.comparingLong(Event::micros));

        Checker.Analysis a = Checker.check("test store", settings(), T0, T0 + 10_000_000, events, List.of(), List.of(pause),
                new long[] {1, 1, 1});

        assertThat(a.perFault()).singleElement().satisfies(o -> {
            assertThat(o.holdsLost()).isEqualTo(1);
            assertThat(o.staleOverlaps()).isEqualTo(1);
            assertThat(o.staleWrites().get("unguarded")).isEqualTo(1);
        });
    }

    @Test
    void aHoldThatSaysItIsValidAfterAnotherWasGrantedIsAViolationEvenIfItsLossIsReportedLater() {
        // Review finding Z1's shape: client 1 lingers in its critical section, cut off with its follower; its hold
        // keeps saying it is valid after client 2 was granted the lock, and is reported lost only later.
        round(1, 10, 100, 6_000, 0);
        at(1_000, 1, Event.OP_VALID, Event.OK, 10, 0);
        at(3_000, 1, Event.OP_VALID, Event.OK, 10, 0);
        at(3_500, 1, Event.OP_VALID, Event.OK, 10, 0);
        at(4_000, 1, Event.OP_VALID, Event.FAIL, 10, 0);
        at(4_100, 1, Event.OP_LOST, Event.OK, 10, 0);
        round(2, 11, 2_500, 2_600, 0);
        round(2, 12, 2_700, 5_000, 1);

        Checker.Analysis a = check(2, 2, 2);

        assertThat(a.staleOverlaps()).as("by the sweep alone, the overlaps look allowed (client 1 was told, late)").hasSize(2);
        assertThat(a.violations()).as("client 1 said valid at 3.0 s and 3.5 s while client 2 held token 12").hasSize(1);
        TortureResult.HoldOverlap o = a.violations().get(0);
        assertThat(List.of(o.clientA(), o.tokenA(), o.clientB(), o.tokenB())).containsExactly("1.1", 10L, "2.1", 12L);
        assertThat(o.startMicros()).isEqualTo(T0 + 3_000_000);
        assertThat(o.endMicros()).isEqualTo(T0 + 3_500_000);
    }

    @Test
    void aHoldThatTurnsInvalidBeforeTheNextGrantIsNoViolation() {
        round(1, 10, 100, 6_000, 0);
        at(1_000, 1, Event.OP_VALID, Event.OK, 10, 0);
        at(2_000, 1, Event.OP_VALID, Event.FAIL, 10, 0);
        at(2_050, 1, Event.OP_LOST, Event.OK, 10, 0);
        round(2, 11, 2_500, 2_600, 0);

        Checker.Analysis a = check(1, 1, 1);

        assertThat(a.violations()).isEmpty();
        assertThat(a.staleOverlaps()).hasSize(1);
    }

    @Test
    void threadsOfOneProcessAreActorsOfTheirOwn() {
        // client 1 runs two threads; their holds overlap: that is a violation, not one actor's re-entry
        events.add(new Event(T0 + 99_000, 1, 1, Event.OP_ACQUIRE, Event.INVOKE, 0, 0, "", 1));
        events.add(new Event(T0 + 100_000, 1, 1, Event.OP_ACQUIRE, Event.OK, 10, 0, "", 1));
        events.add(new Event(T0 + 150_000, 1, 1, Event.OP_ACQUIRE, Event.INVOKE, 0, 0, "", 2));
        events.add(new Event(T0 + 200_000, 1, 1, Event.OP_ACQUIRE, Event.OK, 11, 0, "", 2));
        events.add(new Event(T0 + 300_000, 1, 1, Event.OP_RELEASE, Event.INVOKE, 10, 0, "", 1));
        events.add(new Event(T0 + 301_000, 1, 1, Event.OP_RELEASE, Event.OK, 10, 0, "", 1));
        events.add(new Event(T0 + 400_000, 1, 1, Event.OP_RELEASE, Event.INVOKE, 11, 0, "", 2));
        events.add(new Event(T0 + 401_000, 1, 1, Event.OP_RELEASE, Event.OK, 11, 0, "", 2));

        Checker.Analysis a = check(0, 0, 0);

        assertThat(a.holds()).extracting(Checker.Span::name).containsExactly("1.1#1", "1.1#2");
        assertThat(a.violations()).hasSize(1);
        assertThat(List.of(a.violations().get(0).clientA(), a.violations().get(0).clientB())).containsExactly("1.1#1", "1.1#2");
    }

    @Test
    void aThreadsEventSurvivesItsLine() {
        Event e = new Event(T0, 3, 2, Event.OP_VALID, Event.OK, 7, 0, "", 4);
        assertThat(Event.parse(e.toLine())).isEqualTo(e);
        assertThat(e.actor()).isEqualTo("3.2#4");
        Event single = new Event(T0, 3, 2, Event.OP_ACQUIRE, Event.OK, 7, 0, "x");
        assertThat(single.toLine().split("\t")).hasSize(8);
        assertThat(Event.parse(single.toLine())).isEqualTo(single);
    }

    // Semaphore runs (settings permits N > 1): each round takes one of N permits, so N holds may overlap, not N + 1.

    @Test
    void withTwoPermitsTwoHoldsAtOnceAreAllowedAndAThirdIsOverN() {
        round(1, 10, 100, 400, 0);
        round(2, 11, 200, 500, 0);

        assertThat(checkWithPermits(2, 1, 1, 1).violations()).as("two holds of two permits").isEmpty();
        assertThat(checkWithPermits(1, 1, 1, 1).violations()).as("the same history on the lock").hasSize(1);

        round(3, 12, 300, 350, 0);   // granted while clients 1 and 2 both held a permit
        round(3, 13, 450, 470, 1);   // client 1 had released: two again
        Checker.Analysis a = checkWithPermits(2, 1, 1, 1);

        assertThat(a.violations()).singleElement().satisfies(o -> {
            assertThat(List.of(o.clientA(), o.tokenA(), o.clientB(), o.tokenB())).containsExactly("2.1", 11L, "3.1", 12L);
            assertThat(o.startMicros()).isEqualTo(T0 + 300_000);
            assertThat(o.endMicros()).as("until the first of the three ends").isEqualTo(T0 + 350_000);
        });
        assertThat(a.staleOverlaps()).isEmpty();
        assertThat(a.tokenViolations()).isEmpty();
    }

    @Test
    void withTwoPermitsAThirdHoldBesideALostOneIsStaleNotOverN() {
        round(1, 10, 100, 4_000, 0);
        at(3_900, 1, Event.OP_LOST, Event.OK, 10, 0);
        round(2, 11, 2_500, 3_000, 0);
        round(3, 12, 2_600, 2_700, 0);

        Checker.Analysis a = checkWithPermits(2, 1, 1, 1);

        assertThat(a.violations()).isEmpty();
        assertThat(a.staleOverlaps()).singleElement().satisfies(o -> assertThat(o.tokenB()).isEqualTo(12L));
    }

    @Test
    void withTwoPermitsAHoldThatSaysItIsValidBesideTwoOthersIsOverNEvenIfItsLossIsReportedLater() {
        round(1, 10, 100, 6_000, 0);
        at(1_000, 1, Event.OP_VALID, Event.OK, 10, 0);   // one other at most: fine
        at(2_650, 1, Event.OP_VALID, Event.OK, 10, 0);   // clients 2 and 3 both hold a permit
        at(4_000, 1, Event.OP_VALID, Event.FAIL, 10, 0);
        at(4_100, 1, Event.OP_LOST, Event.OK, 10, 0);
        round(2, 11, 2_500, 3_000, 0);
        round(3, 12, 2_600, 2_700, 0);
        round(3, 13, 3_100, 3_200, 1);

        Checker.Analysis a = checkWithPermits(2, 2, 2, 2);

        assertThat(a.staleOverlaps()).as("by the sweep alone, allowed (client 1 was told, late)").hasSize(1);
        assertThat(a.violations()).singleElement().satisfies(o -> {
            assertThat(List.of(o.clientA(), o.tokenA(), o.clientB(), o.tokenB())).containsExactly("1.1", 10L, "3.1", 12L);
            assertThat(o.startMicros()).isEqualTo(T0 + 2_650_000);
        });
    }

    @Test
    void withPermitsTokensMustStillRiseInRealTimeOrderForTheyAreTheGates() {
        round(1, 10, 100, 400, 0);
        round(2, 11, 200, 500, 0);
        round(3, 9, 600, 700, 1);   // began after both completed, with a token below theirs

        Checker.Analysis a = checkWithPermits(2, 2, 2, 2);

        assertThat(a.violations()).isEmpty();
        assertThat(a.tokenViolations()).singleElement().satisfies(t -> assertThat(t.what()).contains("token 9 is not above token 11"));
    }
}
