package io.holdfast.micrometer;

import io.holdfast.LockListener.AcquireOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of one lock-name group, registered all at once when the group is first seen, so that a dashboard
 * sees zeros rather than gaps, and each event costs a field read and an atomic update, never a registry lookup.
 */
final class GroupMeters {
    private final Map<AcquireOutcome, Timer> waits = new EnumMap<>(AcquireOutcome.class);
    private final Timer heldReleased;
    private final Timer heldLost;
    private final Counter acquired;
    private final Counter timeouts;
    private final Counter busy;
    private final Counter failures;
    private final Counter lost;
    private final Counter renewalFailures;
    /** Holds in force, read by a gauge (weakly, as Micrometer's gauges do: once the listener is gone it reads NaN). */
    private final AtomicLong holds = new AtomicLong();
    /** Acquires in progress. */
    private final AtomicLong waiters = new AtomicLong();

    GroupMeters(MeterRegistry registry, String backend, String group) {
        Tags tags = Tags.of("backend", backend, "group", group);
        for (AcquireOutcome outcome : AcquireOutcome.values()) {
            waits.put(outcome, Timer.builder("holdfast.lock.wait")
                    .description("Time from an acquire's call to its end, by how it ended")
                    .tags(tags).tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                    .register(registry));
        }
        heldReleased = heldTimer(registry, tags, "released");
        heldLost = heldTimer(registry, tags, "lost");
        acquired = counter(registry, tags, "holdfast.lock.acquired", "Locks acquired");
        timeouts = counter(registry, tags, "holdfast.lock.timeouts",
                "Acquires that ran out of time while another owner held the lock");
        busy = counter(registry, tags, "holdfast.lock.busy",
                "tryAcquire() calls refused at once because another owner held the lock");
        failures = counter(registry, tags, "holdfast.lock.failures", "Acquires that ended in a store failure");
        lost = counter(registry, tags, "holdfast.lock.lost", "Holds lost before their owner released them");
        renewalFailures = counter(registry, tags, "holdfast.lock.renewal.failures", "Failed renewal rounds of a hold");
        Gauge.builder("holdfast.lock.holds", holds, AtomicLong::get)
                .description("Holds in force now (re-entered holds count once)").tags(tags).register(registry);
        Gauge.builder("holdfast.lock.waiters", waiters, AtomicLong::get)
                .description("Acquires in progress now").tags(tags).register(registry);
    }

    private static Timer heldTimer(MeterRegistry registry, Tags tags, String end) {
        return Timer.builder("holdfast.lock.held").description("Time from a grant to its release or loss, by how it ended")
                .tags(tags).tag("end", end).register(registry);
    }

    private static Counter counter(MeterRegistry registry, Tags tags, String name, String description) {
        return Counter.builder(name).description(description).tags(tags).register(registry);
    }

    void acquireStarted() {
        waiters.incrementAndGet();
    }

    void acquireEnded(AcquireOutcome outcome, Duration waited) {
        waiters.decrementAndGet();
        waits.get(outcome).record(waited);
        switch (outcome) {
            case ACQUIRED -> {
                holds.incrementAndGet();
                acquired.increment();
            }
            case TIMED_OUT -> timeouts.increment();
            case BUSY -> busy.increment();
            case FAILED -> failures.increment();
            case ABANDONED -> { } // the wait timer's outcome=abandoned counts these
        }
    }

    void released(Duration held) {
        holds.decrementAndGet();
        heldReleased.record(held);
    }

    void lost(Duration held) {
        holds.decrementAndGet();
        heldLost.record(held);
        lost.increment();
    }

    void renewalFailed() {
        renewalFailures.increment();
    }
}
