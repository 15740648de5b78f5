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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database's own session locks ({@code mode=native}): PostgreSQL advisory locks, MySQL/MariaDB
 * {@code GET_LOCK}. Each hold pins one pooled connection, whose session owns the lock; the lock table
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

    NativeLockStore(JdbcLockStore table) {
        this.table = table;
        this.pool = (PooledConnections) table.connections;
        this.locks = SessionLocks.forKind(table.uri.kind, table.uri.table);
        this.capacity = table.uri.poolSize - 1;
        this.permits = new Semaphore(capacity);
        StoreTraits t = table.traits();
        this.traits = new StoreTraits("linearizable on one primary while the holder's session lives; a dropped session frees the lock "
                + "at once, before its holder can know", t.notifiesReleases(), t.minLease(), t.maxPollInterval());
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
        if (!permits.tryAcquire()) {
            throw new HoldfastException("native mode holds at most " + capacity + " locks at once per client (poolSize "
                    + table.uri.poolSize + " minus one kept for renewal checks); raise poolSize in the URI or use the lock table (mode=table)");
        }
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
                Attempt row = table.dialect.tryAcquire(c, name, ownerId, holder, lease, true);
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
     * Asks each pinned session itself whether it still has its lock: that statement also keeps the session
     * from idling into the server's {@code idle_session_timeout} / {@code wait_timeout}, and a session the
     * server has ended fails it, so the hold is reported lost instead of freed in silence. Then the lock
     * table's rows of the holds still held are renewed in one batch (for {@code status} and {@code list}).
     */
    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        Set<String> alive = new HashSet<>();
        List<HoldRef> rows = new ArrayList<>();
        for (HoldRef h : holds) {
            Pin p = pins.get(h.ownerId());
            if (p != null && stillHeld(p)) {
                alive.add(h.ownerId());
                rows.add(h);
            }
        }
        if (!rows.isEmpty()) {
            try {
                table.renew(rows, lease);
            } catch (HoldfastException e) {
                // The session locks are what exclude; only status and list read these rows.
                log.warn("native holds are still held, but their lock-table rows could not be renewed: {}", e.getMessage());
            }
        }
        return alive;
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

    @Override
    public boolean release(String name, String ownerId) {
        Pin p = pins.remove(ownerId);
        if (p == null) {
            return false;
        }
        try {
            synchronized (p) {
                locks.unlock(p.connection(), name);
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
        for (Pin p : new ArrayList<>(pins.values())) {
            pool.discard(p.connection());
        }
        pins.clear();
        table.close();
    }
}
