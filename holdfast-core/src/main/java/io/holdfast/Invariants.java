package io.holdfast;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the core's state machines report a broken invariant: logged as an error and counted (tests
 * assert the count stays zero), then thrown. A violation on a timer or I/O thread, whose executor would
 * swallow the exception, is still seen.
 */
final class Invariants {
    private static final Logger log = LoggerFactory.getLogger(Invariants.class);
    private static final AtomicLong VIOLATIONS = new AtomicLong();

    private Invariants() {
    }

    static IllegalStateException violated(String what) {
        VIOLATIONS.incrementAndGet();
        IllegalStateException e = new IllegalStateException("Holdfast invariant broken: " + what);
        log.error("{}", e.getMessage(), e);
        return e;
    }

    static long violations() {
        return VIOLATIONS.get();
    }
}
