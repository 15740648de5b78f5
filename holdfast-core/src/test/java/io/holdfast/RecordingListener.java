package io.holdfast;

import io.holdfast.LockListener.AcquireOutcome;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/** A {@link LockListener} that records every event in the order it was told, and checks the listener guarantees. */
final class RecordingListener implements LockListener {
    enum Kind { STARTED, ENDED, RELEASED, LOST, RENEWAL_FAILED }

    /** One event; {@code outcome} only for ENDED, {@code time} is waited or held, {@code detail} a reason or error. */
    record Event(Kind kind, String name, AcquireOutcome outcome, long token, Duration time, Object detail) {
        @Override
        public String toString() {
            return kind + (outcome == null ? "" : " " + outcome) + " " + name + (token == 0 ? "" : " #" + token);
        }
    }

    final List<Event> events = new CopyOnWriteArrayList<>();

    @Override
    public void acquireStarted(String lockName) {
        events.add(new Event(Kind.STARTED, lockName, null, 0, null, null));
    }

    @Override
    public void acquireEnded(String lockName, AcquireOutcome outcome, Duration waited, long token) {
        events.add(new Event(Kind.ENDED, lockName, outcome, token, waited, null));
    }

    @Override
    public void released(String lockName, long token, Duration held) {
        events.add(new Event(Kind.RELEASED, lockName, null, token, held, null));
    }

    @Override
    public void lost(String lockName, long token, Duration held, String reason) {
        events.add(new Event(Kind.LOST, lockName, null, token, held, reason));
    }

    @Override
    public void renewalFailed(String lockName, long token, Throwable error) {
        events.add(new Event(Kind.RENEWAL_FAILED, lockName, null, token, null, error));
    }

    List<String> summary() {
        return events.stream().map(Event::toString).toList();
    }

    long count(Kind kind) {
        return events.stream().filter(e -> e.kind == kind).count();
    }

    long count(AcquireOutcome outcome) {
        return events.stream().filter(e -> e.kind == Kind.ENDED && e.outcome == outcome).count();
    }

    /** Waits up to 10 s for an event matching {@code which}, and returns it. */
    Event await(Predicate<Event> which) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            for (Event e : events) {
                if (which.test(e)) {
                    return e;
                }
            }
            assertThat(System.nanoTime() - until).as("an awaited event within 10 s; told so far: %s", summary()).isNegative();
            Thread.sleep(5);
        }
    }

    /** Waits up to 10 s until {@code condition} holds. */
    void awaitUntil(String what, BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - until).as("%s within 10 s; told so far: %s", what, summary()).isNegative();
            Thread.sleep(5);
        }
    }

    /** Waits up to 10 s for every acquire to have ended and every hold to have ended, then checks the guarantees. */
    void awaitBalancedAndCheck() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!balanced() && System.nanoTime() - until < 0) {
            Thread.sleep(10);
        }
        checkGuarantees();
    }

    private boolean balanced() {
        return count(Kind.STARTED) == count(Kind.ENDED)
                && count(AcquireOutcome.ACQUIRED) == count(Kind.RELEASED) + count(Kind.LOST);
    }

    /**
     * Checks, per lock name, that started and ended pair up, and per hold (name and token) that ACQUIRED is told
     * once, followed by exactly one released or lost, with any failed renewals between the two.
     */
    void checkGuarantees() {
        Map<String, Integer> waitsOpen = new HashMap<>();
        Map<String, List<Kind>> perHold = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (Event e : events) {
            String hold = e.name + " #" + e.token;
            switch (e.kind) {
                case STARTED -> waitsOpen.merge(e.name, 1, Integer::sum);
                case ENDED -> {
                    if (waitsOpen.merge(e.name, -1, Integer::sum) < 0) {
                        problems.add("ended before started: " + e);
                    }
                    if (e.outcome == AcquireOutcome.ACQUIRED) {
                        if (perHold.putIfAbsent(hold, new ArrayList<>(List.of(Kind.ENDED))) != null) {
                            problems.add("acquired twice: " + hold);
                        }
                    } else if (e.token != 0) {
                        problems.add("a token on an acquire that did not acquire: " + e);
                    }
                }
                case RELEASED, LOST, RENEWAL_FAILED -> {
                    List<Kind> seen = perHold.get(hold);
                    if (seen == null) {
                        problems.add(e.kind + " before (or without) its ACQUIRED: " + e);
                    } else if (seen.contains(Kind.RELEASED) || seen.contains(Kind.LOST)) {
                        problems.add(e.kind + " after the hold had ended: " + e);
                    } else {
                        seen.add(e.kind);
                    }
                }
            }
        }
        waitsOpen.forEach((name, open) -> {
            if (open != 0) {
                problems.add(open + " acquire(s) of '" + name + "' started but never ended");
            }
        });
        perHold.forEach((hold, seen) -> {
            if (!seen.contains(Kind.RELEASED) && !seen.contains(Kind.LOST)) {
                problems.add("hold " + hold + " neither released nor lost");
            }
        });
        assertThat(problems).as("listener guarantees broken; events: %s", summary()).isEmpty();
    }
}
