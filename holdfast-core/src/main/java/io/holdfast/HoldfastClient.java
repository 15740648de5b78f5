package io.holdfast;

import io.holdfast.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The one implementation of {@link Holdfast}: everything that is the same for every store. */
final class HoldfastClient implements Holdfast {
    private static final Logger log = LoggerFactory.getLogger(HoldfastClient.class);
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    final LockStore store;
    final Duration defaultLease;
    final String holderName;
    /** Timers only (poll, deadline, timeout); never blocks. */
    final ScheduledThreadPoolExecutor timers;
    /** Blocking store calls of waiters and async acquires. */
    final ExecutorService io;
    /** Listener callbacks, one at a time. */
    final ExecutorService events;
    final Renewer renewer;
    private final ConcurrentHashMap<String, WaitQueue> queues = new ConcurrentHashMap<>();
    private final Set<Lease> active = ConcurrentHashMap.newKeySet();
    private final String ownerPrefix;
    private final AtomicLong ownerCounter = new AtomicLong();
    private final ClientAdmin admin;
    private volatile boolean closed;

    HoldfastClient(LockStore store, Duration defaultLease, String holderName) {
        this.store = store;
        this.defaultLease = leaseFor(defaultLease);
        this.holderName = holderName;
        int id = CLIENTS.incrementAndGet();
        this.timers = new ScheduledThreadPoolExecutor(1, daemon("holdfast-" + id + "-timer"));
        this.timers.setRemoveOnCancelPolicy(true);
        this.io = Executors.newCachedThreadPool(daemon("holdfast-" + id + "-io"));
        this.events = Executors.newSingleThreadExecutor(daemon("holdfast-" + id + "-events"));
        this.renewer = new Renewer(this, daemon("holdfast-" + id + "-renewer"));
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        this.ownerPrefix = Base64.getUrlEncoder().withoutPadding().encodeToString(random) + ".";
        this.admin = new ClientAdmin(this);
    }

    @Override
    public DistributedLock lock(String name) {
        return new LockHandle(this, LockNames.requireValid(name), defaultLease, true);
    }

    @Override
    public DistributedLock lock(String name, Duration lease, boolean renew) {
        return new LockHandle(this, LockNames.requireValid(name), leaseFor(lease), renew);
    }

    private Duration leaseFor(Duration lease) {
        Durations.requireLease(lease);
        Duration min = store.traits().minLease();
        if (lease.compareTo(min) < 0) {
            throw new IllegalArgumentException("lease " + Durations.format(lease) + " is shorter than the "
                    + store.backend() + " backend can keep; allowed: " + Durations.format(min) + " to "
                    + Durations.format(Durations.MAX_LEASE));
        }
        return lease;
    }

    @Override
    public LockAdmin admin() {
        return admin;
    }

    @Override
    public String describe() {
        return store.backend() + " " + store.address();
    }

    String newOwnerId() {
        return ownerPrefix + Long.toString(ownerCounter.incrementAndGet(), 36);
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("this Holdfast client (" + describe() + ") is closed");
        }
    }

    /** Registers a new acquisition and returns its first hold. */
    Hold started(Lease lease) {
        active.add(lease);
        if (closed) {
            lease.releaseQuietly();
            throw new IllegalStateException("this Holdfast client (" + describe() + ") is closed");
        }
        return lease.newHold();
    }

    void ended(Lease lease) {
        active.remove(lease);
    }

    WaitQueue queue(String name) {
        return queues.computeIfAbsent(name, n -> new WaitQueue(this, n));
    }

    /** Removes the queue if it has no waiters; called under the queue's monitor. */
    void dropQueueIfIdle(WaitQueue queue) {
        queues.remove(queue.name, queue);
    }

    /** A release of {@code name} was seen (by this client or through the store): wake its next waiter. */
    void signalRelease(String name) {
        WaitQueue q = queues.get(name);
        if (q != null) {
            q.wakeHead();
        }
    }

    Optional<WaitQueue> existingQueue(String name) {
        return Optional.ofNullable(queues.get(name));
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (WaitQueue q : new ArrayList<>(queues.values())) {
            q.abandonAll(new IllegalStateException("the Holdfast client was closed while waiting"));
        }
        List<Lease> held = new ArrayList<>(active);
        for (Lease lease : held) {
            lease.releaseQuietly();
        }
        renewer.shutdown();
        timers.shutdownNow();
        io.shutdown();
        events.shutdown();
        try {
            io.awaitTermination(5, TimeUnit.SECONDS);
            events.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            store.close();
        } catch (RuntimeException e) {
            log.warn("closing {} failed", describe(), e);
        }
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
