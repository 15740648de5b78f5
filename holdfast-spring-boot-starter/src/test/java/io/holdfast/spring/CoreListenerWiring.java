package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockListener;
import org.junit.jupiter.api.Assumptions;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether this build's core calls the listeners given to {@code HoldfastBuilder.listener} (the contract was committed
 * before its wiring). Found out on a client built without the starter, so a starter that fails to register its
 * listeners still fails the tests that use this.
 */
final class CoreListenerWiring {
    private static Boolean wired;

    private CoreListenerWiring() {
    }

    static synchronized boolean wired() {
        if (wired == null) {
            AtomicBoolean heard = new AtomicBoolean();
            try (Holdfast probe = Holdfast.builder(Runners.sqliteUri()).listener(new LockListener() {
                @Override
                public void acquireEnded(String lockName, AcquireOutcome outcome, Duration waited, long token) {
                    heard.set(true);
                }
            }).connect(); Hold hold = probe.lock("probe").acquire(Duration.ofSeconds(5))) {
                wired = hold.isValid() && Await.within(Duration.ofSeconds(5), heard::get);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return wired;
    }

    /** Skips the rest of the test unless the core calls listeners. */
    static void assumeWired() {
        Assumptions.assumeTrue(wired(), "this core does not call LockListeners yet (HoldfastBuilder.listener wiring is pending)");
    }
}
