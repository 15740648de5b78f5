package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.LockLostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Releases the holds of {@link Locked#lockAtLeastFor()} methods that returned early, once their minimum has passed,
 * on one daemon thread. {@link #close()} releases the pending ones at once (the application is stopping).
 */
final class DeferredReleases implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DeferredReleases.class);

    private final ScheduledThreadPoolExecutor scheduler;
    /** Holds not released yet; whoever removes one (the scheduled task or close) releases it. */
    private final Set<Hold> pending = ConcurrentHashMap.newKeySet();

    DeferredReleases() {
        scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "holdfast-locked-release");
            t.setDaemon(true);
            return t;
        });
        scheduler.setRemoveOnCancelPolicy(true);
    }

    /** Releases {@code hold} after {@code delay}; at once if the application is stopping already. */
    void releaseLater(Hold hold, Duration delay) {
        pending.add(hold);
        try {
            scheduler.schedule(() -> releasePending(hold), delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            releasePending(hold);
        }
    }

    private void releasePending(Hold hold) {
        if (pending.remove(hold)) {
            release(hold);
        }
    }

    private static void release(Hold hold) {
        try {
            hold.close();
        } catch (LockLostException e) {
            log.warn("the hold on '{}' (token {}) was lost after its @Locked method returned, before its lockAtLeastFor "
                    + "ended: {}", hold.lockName(), hold.fencingToken(), e.getMessage());
        } catch (RuntimeException e) {
            log.warn("releasing '{}' (token {}) after lockAtLeastFor failed; the lock frees when its lease runs out",
                    hold.lockName(), hold.fencingToken(), e);
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        for (Hold hold : List.copyOf(pending)) {
            releasePending(hold); // now: the application is stopping
        }
    }
}
