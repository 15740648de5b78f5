package io.holdfast.jdbc;

import io.holdfast.HoldfastException;
import io.holdfast.LockInfo;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.StoreTraits;
import io.holdfast.jdbc.SessionLocks.Pin;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database's own locks on pinned connections: session locks ({@code mode=native}: PostgreSQL advisory locks,
 * MySQL/MariaDB {@code GET_LOCK}) or row locks of an open transaction ({@code mode=row}: {@code SELECT ... FOR UPDATE
 * NOWAIT}, see {@link RowLocks}). Each hold pins one pooled connection, whose session owns the lock; the lock table
 * still issues the fencing token and records holders for {@code status} and {@code list}.
 *
 * <p>Limits, by the nature of session locks: the lock frees the moment the holder's session ends, so a
 * dropped connection frees it before the holder can know (the hold is reported lost at the next renewal
 * check, which asks each pinned session whether it still holds its lock, and so also keeps it from idling
 * into the server's idle-session time-out). Connection poolers in
 * transaction mode (PgBouncer) break session locks. Holds at once are bounded by {@code poolSize}.
 */
final class NativeLockStore implements LockStore {
    private final JdbcLockStore table;
    private final PooledConnections pool;
    private final SessionLocks locks;
    private static final Logger log = LoggerFactory.getLogger(NativeLockStore.class);
    private final ConcurrentHashMap<String, Pin> pins = new ConcurrentHashMap<>();
    /** One connection stays free for renewal of the table rows, status and force-release. */
    private final int capacity;
    private final Semaphore permits;
    private final StoreTraits traits;
    /** Runs the renewal checks of the pinned sessions side by side; its threads end after a minute idle. */
    private final ExecutorService checks = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "holdfast-pinned-check");
        t.setDaemon(true);
        return t;
    });
    /** The longest an acquire waits for another's attempt to give its permit back: a statement's socket time-out. */
    private static final Duration ATTEMPT_TIME = Duration.ofSeconds(30);

    NativeLockStore(JdbcLockStore table) {
        this.table = table;
        this.pool = (PooledConnections) table.connections;
        this.locks = SessionLocks.forUri(table.uri);
        this.capacity = table.uri.poolSize - 1;
        this.permits = new Semaphore(capacity);
        StoreTraits t = table.traits();
        this.traits = new StoreTraits(locks.guarantee(), t.notifiesReleases(), t.minLease(), t.maxPollInterval());
        try {
            table.run("open the " + table.uri.mode.parameter() + " locks", c -> {
                locks.prepare(c, table.uri.createTable);
                return null;
            });
        } catch (RuntimeException e) {
            table.close();
            throw e;
        }
    }

    @Override
    public String backend() {
        return table.backend();
    }

    @Override
    public String address() {
        return table.address();
    }

    @Override
    public StoreTraits traits() {
        return traits;
    }

    /**
     * Takes a permit (at most {@code poolSize - 1} pins at once, however many acquires run concurrently),
     * then a connection, then the session lock; the permit goes back unless the connection stays pinned.
     */
    @Override
    public Attempt tryAcquire(String name, String ownerId, String holder, Duration lease) {
        Pin existing = pins.get(ownerId);
        if (existing != null) {
            return Attempt.acquired(existing.token()); // a retried acquire adopts its own hold
        }
        takePermit();
        boolean pinned = false;
        try {
            Connection c;
            try {
                c = pool.borrow();
            } catch (SQLException e) {
                throw table.errors.failure("cannot acquire '" + name + "'", e);
            }
            try {
                long session = locks.tryLock(c, name);
                if (session < 0) {
                    c.close();
                    return Attempt.busy(null);
                }
                Attempt row = locks.inTransaction() // the pinned connection's writes would commit only at release
                        ? table.connections.with(other -> table.dialect.tryAcquire(other, name, ownerId, holder, lease, true))
                        : table.dialect.tryAcquire(c, name, ownerId, holder, lease, true);
                pins.put(ownerId, new Pin(name, ownerId, c, session, row.fencingToken()));
                pinned = true;
                return row;
            } catch (SQLException e) {
                pool.discard(c); // ends the session, and with it any lock it took
                throw table.errors.failure("cannot acquire '" + name + "'", e);
            }
        } finally {
            if (!pinned) {
                permits.release();
            }
        }
    }

    /**
     * Takes a permit to pin a connection. Permits all taken by pins mean the client holds all it can: refused at once.
     * Otherwise attempts in flight have the rest (a refused one gives its permit back within a few statements, as
     * when many threads try one name at once): this waits for one, as long as a statement may take.
     */
    private void takePermit() {
        if (permits.tryAcquire()) {
            return;
        }
        long deadline = System.nanoTime() + ATTEMPT_TIME.toNanos();
        boolean interrupted = false;
        try {
            while (pins.size() < capacity && System.nanoTime() - deadline < 0) {
                try {
                    if (permits.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true; // a store call does not answer to interrupts; the flag is kept for the caller
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        throw new HoldfastException(table.uri.mode.parameter() + " mode holds at most " + capacity + " locks at once per client "
                + "(poolSize " + table.uri.poolSize + " minus one kept for renewal checks; a read-write lock's write takes 17, "
                + "a semaphore's acquire of n permits n + 1); raise poolSize in the URI or use the lock table (mode=table)");
    }

    /**
     * Asks each pinned session itself, all at once (one thread each, so n holds cost one round trip of time, not n),
     * whether it still has its lock: that statement also keeps the session
     * from idling into the server's {@code idle_session_timeout} / {@code wait_timeout}, and a session the
     * server has ended fails it, so the hold is reported lost instead of freed in silence. Then the lock
     * table's rows of the holds still held are renewed in one batch, in the background (only {@code status} and {@code list} read them).
     */
    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        Map<HoldRef, Future<Boolean>> checking = new LinkedHashMap<>();
        for (HoldRef h : holds) {
            Pin p = pins.get(h.ownerId());
            if (p != null) {
                checking.put(h, checks.submit(() -> stillHeld(p)));
            }
        }
        Set<String> alive = new HashSet<>();
        List<HoldRef> rows = new ArrayList<>();
        for (Map.Entry<HoldRef, Future<Boolean>> c : checking.entrySet()) {
            if (answer(c.getValue())) {
                alive.add(c.getKey().ownerId());
                rows.add(c.getKey());
            }
        }
        if (!rows.isEmpty()) {
            // The database's locks are what exclude; only status and list read these rows, so the answer does not wait
            // for them (a renewal under load that also waited for the batch let 17 holds of a write run out).
            try {
                checks.execute(() -> renewRows(rows, lease));
            } catch (RejectedExecutionException e) {
                log.debug("store closed: the lock-table rows are not renewed");
            }
        }
        return alive;
    }

    private void renewRows(List<HoldRef> rows, Duration lease) {
        try {
            table.renew(rows, lease);
        } catch (HoldfastException e) {
            log.warn("native holds are still held, but their lock-table rows could not be renewed: {}", e.getMessage());
        }
    }

    private static boolean answer(Future<Boolean> check) {
        try {
            return check.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HoldfastException("interrupted while checking pinned sessions", e);
        } catch (ExecutionException e) {
            throw new HoldfastException("checking a pinned session failed", e.getCause());
        }
    }

    /** One statement on the pin's own connection; a failed one ends that session (freeing its lock) and drops the pin. */
    private boolean stillHeld(Pin p) {
        synchronized (p) {
            if (pins.get(p.owner()) != p) {
                return false; // released meanwhile
            }
            try {
                return locks.heldHere(p.connection(), p.name());
            } catch (SQLException e) {
                log.debug("native hold of '{}' lost: its session failed", p.name(), e);
                if (pins.remove(p.owner(), p)) {
                    pool.discard(p.connection());
                    permits.release();
                }
                return false;
            }
        }
    }

    /**
     * Frees the lock on its pinned session, then the lock table's row (which wakes waiters). A session that has
     * ended (killed, force-released, cut off) had already lost the lock: that release answers false, so the hold
     * is reported lost, and the row is freed from another connection if the database answers.
     */
    @Override
    public boolean release(String name, String ownerId) {
        Pin p = pins.remove(ownerId);
        if (p == null) {
            return false;
        }
        try {
            synchronized (p) {
                try {
                    locks.unlock(p.connection(), name);
                } catch (SQLException e) {
                    if (alive(p.connection())) {
                        throw e;
                    }
                    pool.discard(p.connection());
                    log.debug("native hold of '{}' lost: its session had ended before the release", name, e);
                    freeRowQuietly(name, ownerId);
                    return false;
                }
                table.dialect.release(p.connection(), name, ownerId);
                p.connection().close();
            }
            return true;
        } catch (SQLException e) {
            pool.discard(p.connection()); // the session ends, which frees the lock
            throw table.errors.failure("cannot release '" + name + "'", e);
        } finally {
            permits.release();
        }
    }

    private static boolean alive(Connection c) {
        try {
            return !c.isClosed() && c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    private void freeRowQuietly(String name, String ownerId) {
        try {
            table.release(name, ownerId);
        } catch (HoldfastException e) {
            log.debug("the lock-table row of '{}' stays until its lease ends: {}", name, e.getMessage());
        }
    }

    @Override
    public AutoCloseable watchReleases(String name, String ownerId, Runnable onRelease) {
        return table.watchReleases(name, ownerId, onRelease);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return table.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        return table.list(prefix, limit);
    }

    @Override
    public boolean forceRelease(String name) {
        boolean ended = table.run("force-release '" + name + "'", c -> locks.terminateHolder(c, name));
        table.forceRelease(name);
        return ended;
    }

    @Override
    public void close() {
        checks.shutdownNow();
        for (Pin p : new ArrayList<>(pins.values())) {
            pool.discard(p.connection());
        }
        pins.clear();
        table.close();
    }
}
