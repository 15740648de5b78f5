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
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The one implementation of {@link Holdfast}: everything that is the same for every store. */
final class HoldfastClient implements Holdfast {
    private static final Logger log = LoggerFactory.getLogger(HoldfastClient.class);
    private static final AtomicInteger CLIENTS = new AtomicInteger();
    /** Store calls of waiters in flight at once, at most; more wait their turn in the pool's queue. */
    private static final int IO_THREADS = 32;

    final LockStore store;
    /** The leases the store can keep. */
    final LeaseRange leases;
    final Duration defaultLease;
    final String holderName;
    /** Timers only (poll, deadline, timeout); never blocks. */
    final ScheduledThreadPoolExecutor timers;
    /**
     * Blocking store calls of waiters, async acquires and give-backs. Bounded: waiting itself takes no
     * thread (a blocked caller parks on its future; a virtual thread unmounts), only calls in flight do.
     */
    final ThreadPoolExecutor io;
    /** Listener callbacks, one at a time. */
    final ExecutorService events;
    final Renewer renewer;
    /** The local deadlines of held leases, watched on the timer thread. */
    final Deadlines deadlines;
    /** The application's {@link LockListener}s; told outside every monitor. */
    final Listeners listeners;
    private final ConcurrentHashMap<String, WaitQueue> queues = new ConcurrentHashMap<>();
    /** Every wait not over yet, so that close() ends each one. */
    private final Set<Acquisition> waiting = ConcurrentHashMap.newKeySet();
    private final Set<Lease> active = ConcurrentHashMap.newKeySet();
    /** Elections not closed yet, so that close() resigns each one while listeners can still be told. */
    private final Set<Election> elections = ConcurrentHashMap.newKeySet();
    private final String ownerPrefix;
    private final AtomicLong ownerCounter = new AtomicLong();
    private final ClientAdmin admin;
    private volatile boolean closed;

    /**
     * A client over {@code store}; {@code defaultLease} null means the core's default brought into the store's range.
     *
     * @throws IllegalArgumentException if the store cannot keep {@code defaultLease}; nothing is started then
     */
    HoldfastClient(LockStore store, Duration defaultLease, String holderName, List<LockListener> listeners) {
        this.store = store;
        this.listeners = new Listeners(listeners);
        this.leases = new LeaseRange(store);
        this.defaultLease = leases.defaultLease(defaultLease);
        this.holderName = holderName;
        int id = CLIENTS.incrementAndGet();
        this.timers = new ScheduledThreadPoolExecutor(1, daemon("holdfast-" + id + "-timer"));
        this.timers.setRemoveOnCancelPolicy(true);
        this.io = new ThreadPoolExecutor(IO_THREADS, IO_THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                daemon("holdfast-" + id + "-io"));
        this.io.allowCoreThreadTimeOut(true);
        this.events = Executors.newSingleThreadExecutor(daemon("holdfast-" + id + "-events"));
        this.renewer = new Renewer(this, daemon("holdfast-" + id + "-renewer"));
        this.deadlines = new Deadlines(this);
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        this.ownerPrefix = Base64.getUrlEncoder().withoutPadding().encodeToString(random) + ".";
        this.admin = new ClientAdmin(this);
    }

    @Override
    public DistributedLock lock(String name) {
        return lock(name, defaultLease, true);
    }

    @Override
    public DistributedLock lock(String name, Duration lease, boolean renew) {
        return lock(name, lease, renew, LockInfo.Role.LOCK);
    }

    /** A lock whose holds' owner ids mark {@code role}. */
    DistributedLock lock(String name, Duration lease, boolean renew, LockInfo.Role role) {
        return new LockHandle(this, LockNames.requireValid(name), leases.require(lease), renew, role);
    }

    @Override
    public MultiLock multiLock(String... names) {
        return MultiLockHandle.of(this, names == null ? null : java.util.Arrays.asList(names), this::lock);
    }

    @Override
    public MultiLock multiLock(java.util.Collection<String> names, Duration lease, boolean renew) {
        Duration checked = leases.require(lease);
        return MultiLockHandle.of(this, names, name -> lock(name, checked, renew));
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits) {
        return semaphore(name, permits, defaultLease, true);
    }

    @Override
    public DistributedSemaphore semaphore(String name, int permits, Duration lease, boolean renew) {
        return SemaphoreHandle.of(this, "semaphore", name, permits, leases.require(lease), renew, LockInfo.Role.LOCK);
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name) {
        return readWriteLock(name, defaultLease, true);
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name, Duration lease, boolean renew) {
        return ReadWriteHandle.of(this, name, leases.require(lease), renew);
    }

    @Override
    public LeaderElection leader(String name) {
        return leader(name, defaultLease);
    }

    @Override
    public LeaderElection leader(String name, Duration lease) {
        checkOpen();
        Election election = new Election(this, lock(name, lease, true, LockInfo.Role.LEADER));
        elections.add(election);
        if (closed) {
            election.close();
            checkOpen();
        }
        return election;
    }

    /** A closed election: the client need not close it. */
    void forget(Election election) {
        elections.remove(election);
    }

    @Override
    public LockAdmin admin() {
        return admin;
    }

    @Override
    public String describe() {
        return store.backend() + " " + store.address();
    }

    /** A new owner id, marked with {@code role} (see {@link LockInfo.Role}). */
    String newOwnerId(LockInfo.Role role) {
        return ownerPrefix + role.tag() + Long.toString(ownerCounter.incrementAndGet(), 36);
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("this Holdfast client (" + describe() + ") is closed");
        }
    }

    boolean isClosed() {
        return closed;
    }

    static IllegalStateException closedWhileWaiting() {
        return new IllegalStateException("the Holdfast client was closed while waiting");
    }

    /**
     * Registers a granted lease and returns its first hold; releases it if the client closed meanwhile. The
     * listeners are told of the grant first, before anything (a deadline, a renewal, the client's close) can
     * end the lease, so they always hear ACQUIRED before its release or loss.
     */
    Hold started(Lease lease, long acquireStartNanos) {
        listeners.acquireEnded(lease.name, LockListener.AcquireOutcome.ACQUIRED, acquireStartNanos, lease.token);
        active.add(lease);
        Hold first = lease.start();
        if (closed) {
            lease.releaseQuietly();
            throw new IllegalStateException("this Holdfast client (" + describe() + ") is closed");
        }
        return first;
    }

    /** Runs {@code task} on the timer thread after {@code delayNanos}; null, and never run, once the client is closed. */
    java.util.concurrent.ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        try {
            return timers.schedule(task, Math.max(0, delayNanos), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return null;
        }
    }

    /** Closes {@code c} if not null, ignoring what it throws (a watch that fails to close costs a stray wake-up at most). */
    static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception e) {
                // ignored, as documented
            }
        }
    }

    /** Runs {@code task} on the I/O pool, or on this thread if the client is closing and the pool refuses it. */
    void runInBackground(Runnable task) {
        try {
            io.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            task.run();
        }
    }

    /** Releases, quietly, a hold that was granted to a wait its caller had given up. */
    void releaseUnwanted(Hold hold) {
        if (hold instanceof LeasedHold leased) {
            leased.lease().releaseQuietly();
        }
    }

    /** Registers a wait so that close() ends it; false if the client is closed already. */
    boolean register(Acquisition acquisition) {
        waiting.add(acquisition);
        if (closed) {
            waiting.remove(acquisition);
            return false;
        }
        return true;
    }

    void unregister(Acquisition acquisition) {
        waiting.remove(acquisition);
    }

    void ended(Lease lease) {
        active.remove(lease);
    }

    /** Adds a wait at the tail of this client's queue for its name. */
    void enqueue(Acquisition acquisition, boolean attemptNow) {
        while (!queues.computeIfAbsent(acquisition.handle.name, n -> new WaitQueue(this, n)).enqueue(acquisition, attemptNow)) {
            Thread.onSpinWait(); // that queue was emptied and retired meanwhile: join the current one
        }
    }

    /** Whether any wait of this client is queued for {@code name}. */
    boolean hasWaiters(String name) {
        WaitQueue q = queues.get(name);
        return q != null && q.hasWaiters();
    }

    /** Removes an emptied queue; called under the queue's monitor. */
    void dropQueue(WaitQueue queue) {
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
        for (Election e : new ArrayList<>(elections)) {
            e.close("the Holdfast client was closed");
        }
        for (Acquisition a : new ArrayList<>(waiting)) {
            a.giveUp(closedWhileWaiting());
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
