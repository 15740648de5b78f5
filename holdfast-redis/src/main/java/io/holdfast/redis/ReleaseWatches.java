package io.holdfast.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * This store's wake-up subscriptions: one shard channel per lock name that someone here waits for
 * ({@code P{N}:wake:CLIENT}), subscribed on the one pub/sub connection while at least one watcher of
 * the name is registered, and unsubscribed when the last one leaves. A release publishes to one waiting
 * client's channel only, so only this process's head waiter (the core's one watcher per name) wakes.
 *
 * <p>A channel stays subscribed for {@link #LINGER} after its last watcher leaves, so a client that waits
 * on the same lock again (the usual case: take, release, take again) is subscribed before its first
 * attempt can queue it; then a timer unsubscribes it if it is still idle (one timer per idle period, no
 * scan of other names). A wake-up for a name nobody here
 * waits for any more (the waiter gave up in between) is passed on to the next queued client at once. After Lettuce re-subscribes a channel on a new connection, every
 * watcher of that name is woken, since releases during the outage were not heard.
 */
final class ReleaseWatches implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReleaseWatches.class);
    /** How long a channel stays subscribed without watchers. */
    static final java.time.Duration LINGER = java.time.Duration.ofSeconds(30);
    /** The linger of stores opened from now on; tests shorten it. */
    static volatile long lingerNanos = LINGER.toNanos();

    private final RedisConnection connection;
    private final LockKeys keys;
    private final String clientId;
    private final Consumer<String> unclaimed;
    private final long linger = lingerNanos;
    // Guarded by this.
    private final Map<String, Watched> byName = new HashMap<>();
    private StatefulRedisPubSubConnection<String, String> pubSub;
    private boolean closed;

    private static final class Watched {
        final List<Consumer<String>> watchers = new CopyOnWriteArrayList<>();
        boolean confirmed;
        volatile boolean woken;
        /** Counts idle periods; a drop timer acts only on the period it was set for. */
        long idlePeriod;
    }

    /**
     * @param unclaimed called with a lock name when a wake-up arrives that nobody here wants
     */
    ReleaseWatches(RedisConnection connection, LockKeys keys, String clientId, Consumer<String> unclaimed) {
        this.connection = connection;
        this.keys = keys;
        this.clientId = clientId;
        this.unclaimed = unclaimed;
    }

    /** Calls {@code onRelease} with the release's payload when this client is woken for {@code name}. */
    AutoCloseable watch(String name, Consumer<String> onRelease) {
        String channel = keys.wakeChannel(name, clientId);
        synchronized (this) {
            if (closed) {
                return () -> { };
            }
            StatefulRedisPubSubConnection<String, String> ps = pubSubLocked();
            Watched w = byName.get(name);
            if (w == null) {
                w = new Watched();
                byName.put(name, w);
                ps.async().ssubscribe(channel).exceptionally(e -> {
                    log.debug("subscribing to {} failed; waiters on '{}' poll", channel, name, e);
                    return null;
                });
            }
            w.watchers.add(onRelease);
        }
        return () -> unwatch(name, channel, onRelease);
    }

    private void unwatch(String name, String channel, Consumer<String> onRelease) {
        long period;
        synchronized (this) {
            Watched w = byName.get(name);
            if (w == null || !w.watchers.remove(onRelease) || !w.watchers.isEmpty()) {
                return;
            }
            period = ++w.idlePeriod; // stays subscribed for a while: the next wait on it is covered at once
        }
        java.util.concurrent.CompletableFuture.delayedExecutor(linger, java.util.concurrent.TimeUnit.NANOSECONDS)
                .execute(() -> dropIfStillIdle(name, channel, period));
    }

    /** Unsubscribes {@code name}'s channel if it has had no watcher since idle period {@code period} began. */
    private void dropIfStillIdle(String name, String channel, long period) {
        synchronized (this) {
            Watched w = byName.get(name);
            if (w == null || !w.watchers.isEmpty() || w.idlePeriod != period) {
                return; // watched again meanwhile (a later idle period has its own timer)
            }
            byName.remove(name);
            if (closed || pubSub == null) {
                return;
            }
        }
        pubSub.async().sunsubscribe(channel).exceptionally(x -> null);
    }

    private StatefulRedisPubSubConnection<String, String> pubSubLocked() {
        if (pubSub == null) {
            pubSub = connection.pubSub();
            pubSub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void smessage(String channel, String message) {
                    delivered(channel, message);
                }

                @Override
                public void ssubscribed(String channel, long count) {
                    resubscribed(channel);
                }
            });
        }
        return pubSub;
    }

    private void delivered(String channel, String payload) {
        String name = keys.nameOfWakeChannel(channel);
        if (name == null) {
            return;
        }
        List<Consumer<String>> watchers;
        synchronized (this) {
            Watched w = byName.get(name);
            watchers = w == null ? List.of() : w.watchers;
            if (w != null && !w.watchers.isEmpty()) {
                w.woken = true;
            }
        }
        if (watchers.isEmpty()) {
            unclaimed.accept(name);
            return;
        }
        AttemptCounters.WAKE_UPS_DELIVERED.increment();
        for (Consumer<String> watcher : watchers) {
            watcher.accept(payload);
        }
    }

    private void resubscribed(String channel) {
        String name = keys.nameOfWakeChannel(channel);
        if (name == null) {
            return;
        }
        List<Consumer<String>> watchers;
        synchronized (this) {
            Watched w = byName.get(name);
            if (w == null) {
                return;
            }
            if (!w.confirmed) {
                w.confirmed = true; // the first subscription: the waiter's own polls cover the moment before it
                return;
            }
            watchers = w.watchers;
        }
        log.debug("re-subscribed to {}; waking its waiters, since releases during the outage were not heard", channel);
        for (Consumer<String> watcher : watchers) {
            watcher.accept("resubscribed");
        }
    }

    /** Counts an acquire attempt by its cause (see {@link AttemptCounters}). */
    void countAttempt(String name) {
        Watched w;
        synchronized (this) {
            w = byName.get(name);
        }
        if (w == null || w.watchers.isEmpty()) {
            AttemptCounters.FIRST.increment();
        } else if (w.woken) {
            w.woken = false;
            AttemptCounters.WOKEN.increment();
        } else {
            AttemptCounters.POLLED.increment();
        }
    }

    /**
     * Whether {@code name}'s channel is subscribed (someone here waits for it, or did within {@link #LINGER}): then
     * this client may be in the lock's queue, which a grant must leave.
     */
    synchronized boolean isSubscribed(String name) {
        return byName.containsKey(name);
    }

    /** How many names have a subscription (with watchers or lingering), for tests. */
    synchronized int subscribedNames() {
        return byName.size();
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            byName.clear();
        }
    }
}
