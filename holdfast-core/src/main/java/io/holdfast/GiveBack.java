package io.holdfast;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Releases, in the background, an owner the core gives up without a hold: a wait that ended while an
 * attempt's reply may have been lost (a grant nobody will use), or a refused owner a queueing store keeps
 * in its queue. While the store is unreachable it retries with backoff (50 ms doubling to 1 s) for as long
 * as a stray grant could last, one lease, or until the client closes; a store that keeps a queued owner for
 * longer (a ZooKeeper node lives with its session) cleans up behind that itself.
 */
final class GiveBack implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(GiveBack.class);
    private static final long FIRST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final HoldfastClient client;
    private final String name;
    private final String owner;
    private final long untilNanos;
    private long retryNanos = FIRST_RETRY_NANOS;

    private GiveBack(HoldfastClient client, String name, String owner, Duration lease) {
        this.client = client;
        this.name = name;
        this.owner = owner;
        this.untilNanos = System.nanoTime() + lease.toNanos();
    }

    static void start(HoldfastClient client, String name, String owner, Duration lease) {
        new GiveBack(client, name, owner, lease).submit();
    }

    private void submit() {
        client.runInBackground(this); // the client closing: at once, on this thread, once
    }

    @Override
    public void run() {
        try {
            if (client.store.release(name, owner)) {
                client.signalRelease(name);
            }
        } catch (StoreUnavailableException e) {
            if (client.isClosed() || System.nanoTime() + retryNanos - untilNanos >= 0) {
                log.debug("giving back '{}' for {} failed; a stray grant ends with its lease", name, owner, e);
                return;
            }
            long delay = retryNanos;
            retryNanos = Math.min(MAX_RETRY_NANOS, retryNanos * 2);
            client.schedule(this::submit, delay); // none once the client is closed: a stray grant ends with its lease
        } catch (RuntimeException e) {
            log.debug("giving back '{}' for {} was refused", name, owner, e);
        }
    }
}
