package io.holdfast.spring;

import io.holdfast.Durations;
import io.holdfast.Holdfast;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Health {@code holdfast}: UP when the store answers a one-row listing of its held locks within
 * {@code holdfast.health.timeout}, DOWN with the error (or the time-out) otherwise. Details: the store, and, for a
 * client the starter built, the holds it lost within {@code holdfast.health.lost-window} and the last of them. A lost
 * hold does not make the store DOWN. At most one store call is in flight: checks made while an earlier call still
 * hangs wait for that one.
 */
public class HoldfastHealthIndicator implements HealthIndicator, DisposableBean {
    private final Holdfast holdfast;
    private final RecentLosses losses;
    private final Duration timeout;
    private final Duration lostWindow;
    private final ExecutorService probes = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "holdfast-health");
        t.setDaemon(true);
        return t;
    });
    /** The store call in flight or last made; guarded by this. */
    private Future<?> probe;

    HoldfastHealthIndicator(Holdfast holdfast, RecentLosses losses, HoldfastProperties.Health settings) {
        this.holdfast = holdfast;
        this.losses = losses;
        this.timeout = settings.getTimeout();
        this.lostWindow = settings.getLostWindow();
    }

    @Override
    public Health health() {
        Health.Builder health;
        try {
            probe().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            health = Health.up();
        } catch (TimeoutException e) {
            health = Health.down().withDetail("error", "the store did not answer within " + Durations.format(timeout));
        } catch (ExecutionException e) {
            health = Health.down(e.getCause() instanceof Exception ex ? ex : e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            health = Health.down(e);
        }
        health.withDetail("store", holdfast.describe());
        if (losses != null && losses.isAttached()) {
            RecentLosses.Snapshot recent = losses.snapshot();
            health.withDetail("holdsLost", recent.count()).withDetail("holdsLostWithin", Durations.format(lostWindow));
            if (recent.last() != null) {
                Map<String, Object> last = new LinkedHashMap<>();
                last.put("lock", recent.last().lockName());
                last.put("fencingToken", recent.last().token());
                last.put("reason", recent.last().reason());
                last.put("agoMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - recent.last().nanoTime()));
                health.withDetail("lastLoss", last);
            }
        }
        return health.build();
    }

    private synchronized Future<?> probe() {
        if (probe == null || probe.isDone()) {
            probe = probes.submit(() -> holdfast.admin().list("", 1));
        }
        return probe;
    }

    @Override
    public void destroy() {
        probes.shutdownNow();
    }
}
