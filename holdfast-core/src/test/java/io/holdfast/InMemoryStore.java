package io.holdfast;

import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.StoreTraits;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A lock store in memory, for testing the core's state machines: the store's semantics as the SPI states
 * them (idempotent per owner, tokens that only rise, leases by its own clock), with knobs for what real
 * stores do to the core: latency, outages, lost replies (the operation happens, the reply is an error),
 * an ordered queue of waiters (ZooKeeper, etcd) or none, release notifications or none.
 */
final class InMemoryStore implements LockStore {
    final boolean queues;
    final boolean notifies;
    /** Each call sleeps a random time up to this many microseconds (0: no latency). */
    volatile long latencyMicros;
    /** Probability that a call fails before doing anything. */
    volatile double failBefore;
    /** Probability that a call does its work and then fails (a lost reply). */
    volatile double failAfter;
    /** If set, thrown by every acquire attempt (a store error that is not transient). */
    volatile RuntimeException acquireError;
    /** Thrown once, then cleared, by the next acquire attempt. */
    final AtomicReference<Throwable> acquireThrowsOnce = new AtomicReference<>();
    /** Thrown once, then cleared, by the next renew call. */
    final AtomicReference<Throwable> renewThrowsOnce = new AtomicReference<>();
    /** Called at the start of every release, with the lock name (a test can block it). */
    volatile Consumer<String> onRelease = n -> { };
    /** If not null: a grant says the store counts its lease from this many nanoseconds before the attempt. */
    volatile Long grantsCountLeaseFromNanosAgo;
    final AtomicInteger attempts = new AtomicInteger();
    final List<String> attemptOwners = new CopyOnWriteArrayList<>();

    private final Map<String, Entry> locks = new HashMap<>();
    private final Map<String, Long> counters = new HashMap<>();
    private final Map<String, LinkedHashMap<String, Boolean>> waiters = new HashMap<>();
    private final Map<String, List<Runnable>> watches = new ConcurrentHashMap<>();

    private record Entry(String owner, long token, long expiresAtNanos) {
        boolean live() {
            return System.nanoTime() - expiresAtNanos < 0;
        }
    }

    InMemoryStore(boolean queues, boolean notifies) {
        this.queues = queues;
        this.notifies = notifies;
    }

    @Override
    public String backend() {
        return "memory";
    }

    @Override
    public String address() {
        return "here";
    }

    /** Renewals of leases of this length are answered {@link #lateAnswerMillis} after they were done (null: none). */
    volatile Duration answerLateFor;
    volatile long lateAnswerMillis;

    /** Answers the renewal of {@link #answerLateFor} late, as ZooKeeper does after its proof wait; others at once. */
    @Override
    public java.util.concurrent.CompletableFuture<io.holdfast.spi.Renewals> renewEachAsync(Collection<HoldRef> holds, Duration lease) {
        if (!lease.equals(answerLateFor)) {
            return LockStore.super.renewEachAsync(holds, lease);
        }
        java.util.concurrent.CompletableFuture<io.holdfast.spi.Renewals> done = LockStore.super.renewEachAsync(holds, lease);
        return done.thenApplyAsync(r -> r, java.util.concurrent.CompletableFuture.delayedExecutor(lateAnswerMillis, TimeUnit.MILLISECONDS));
    }

    /** The store's own longest lease, as a ZooKeeper ensemble's maxSessionTimeout sets one; null for none. */
    volatile Duration maxLease;

    @Override
    public StoreTraits traits() {
        StoreTraits traits = new StoreTraits("in memory", notifies, Duration.ofMillis(50), Duration.ofMillis(200), queues);
        Duration max = maxLease;
        return max == null ? traits : traits.withMaxLease(max, "the test's maxLease");
    }

    @Override
    public Attempt tryAcquire(String name, String ownerId, String holder, Duration lease) {
        attempts.incrementAndGet();
        attemptOwners.add(ownerId);
        RuntimeException refused = acquireError;
        if (refused != null) {
            throw refused;
        }
        Throwable once = acquireThrowsOnce.getAndSet(null);
        if (once instanceof Error error) {
            throw error;
        } else if (once != null) {
            throw (RuntimeException) once;
        }
        before();
        Attempt result;
        synchronized (this) {
            Entry e = locks.get(name);
            if (e != null && e.live() && e.owner.equals(ownerId)) {
                result = Attempt.acquired(e.token);
            } else {
                LinkedHashMap<String, Boolean> line = waiters.computeIfAbsent(name, n -> new LinkedHashMap<>());
                boolean myTurn = !queues || line.isEmpty() || line.keySet().iterator().next().equals(ownerId);
                if ((e == null || !e.live()) && myTurn) {
                    long token = counters.merge(name, 1L, Long::sum);
                    locks.put(name, new Entry(ownerId, token, System.nanoTime() + lease.toNanos()));
                    line.remove(ownerId);
                    Long ago = grantsCountLeaseFromNanosAgo;
                    result = ago == null ? Attempt.acquired(token) : Attempt.acquired(token, System.nanoTime() - ago);
                } else {
                    if (queues) {
                        line.putIfAbsent(ownerId, true);
                    }
                    result = Attempt.busy(e == null ? null : Duration.ofNanos(Math.max(0, e.expiresAtNanos - System.nanoTime())));
                }
            }
        }
        after();
        return result;
    }

    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        Throwable t = renewThrowsOnce.getAndSet(null);
        if (t instanceof Error error) {
            throw error;
        }
        if (t instanceof RuntimeException re) {
            throw re;
        }
        before();
        Set<String> renewed = new HashSet<>();
        synchronized (this) {
            for (HoldRef h : holds) {
                Entry e = locks.get(h.name());
                if (e != null && e.live() && e.owner.equals(h.ownerId())) {
                    locks.put(h.name(), new Entry(e.owner, e.token, System.nanoTime() + lease.toNanos()));
                    renewed.add(h.ownerId());
                }
            }
        }
        after();
        return renewed;
    }

    @Override
    public boolean release(String name, String ownerId) {
        onRelease.accept(name);
        before();
        boolean freed;
        synchronized (this) {
            LinkedHashMap<String, Boolean> line = waiters.get(name);
            if (line != null) {
                line.remove(ownerId);
            }
            Entry e = locks.get(name);
            freed = e != null && e.live() && e.owner.equals(ownerId);
            if (freed) {
                locks.remove(name);
            }
        }
        if (freed || queues) {
            fire(name);
        }
        after();
        return freed;
    }

    @Override
    public AutoCloseable watchReleases(String name, String ownerId, Runnable onReleased) {
        if (!notifies) {
            return () -> { };
        }
        List<Runnable> list = watches.computeIfAbsent(name, n -> new CopyOnWriteArrayList<>());
        list.add(onReleased);
        return () -> list.remove(onReleased);
    }

    private void fire(String name) {
        List<Runnable> list = watches.get(name);
        if (list != null) {
            for (Runnable r : list) {
                r.run();
            }
        }
    }

    /** Owners queued (queueing mode) or holding, for leak checks. */
    synchronized List<String> leftovers() {
        List<String> out = new ArrayList<>();
        locks.forEach((n, e) -> {
            if (e.live()) {
                out.add(n + " held by " + e.owner);
            }
        });
        waiters.forEach((n, line) -> line.keySet().forEach(o -> out.add(n + " queued " + o)));
        return out;
    }

    synchronized Optional<String> holder(String name) {
        Entry e = locks.get(name);
        return e != null && e.live() ? Optional.of(e.owner) : Optional.empty();
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        synchronized (this) {
            Entry e = locks.get(name);
            if (e == null || !e.live()) {
                return Optional.empty();
            }
            return Optional.of(new LockInfo(name, true, "h", e.owner, e.token,
                    Duration.ofNanos(e.expiresAtNanos - System.nanoTime())));
        }
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        return List.of();
    }

    @Override
    public boolean forceRelease(String name) {
        boolean freed;
        synchronized (this) {
            freed = locks.remove(name) != null;
        }
        fire(name);
        return freed;
    }

    @Override
    public void close() {
    }

    private void before() {
        sleepSome();
        if (failBefore > 0 && ThreadLocalRandom.current().nextDouble() < failBefore) {
            throw new StoreUnavailableException("memory", "here", "injected outage", null);
        }
    }

    private void after() {
        if (failAfter > 0 && ThreadLocalRandom.current().nextDouble() < failAfter) {
            throw new StoreUnavailableException("memory", "here", "injected lost reply", null);
        }
        sleepSome();
    }

    private void sleepSome() {
        long micros = latencyMicros;
        if (micros > 0) {
            long n = ThreadLocalRandom.current().nextLong(micros / 2, micros + 1);
            long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(n);
            while (System.nanoTime() - until < 0) {
                try {
                    Thread.sleep(0, 200_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Wraps this store in a client the way Holdfast.connect does. */
    Holdfast client() {
        return client(List.of());
    }

    /** Wraps this store in a client with these listeners. */
    Holdfast client(List<LockListener> listeners) {
        return new HoldfastClient(this, Duration.ofSeconds(30), "test", listeners);
    }
}
