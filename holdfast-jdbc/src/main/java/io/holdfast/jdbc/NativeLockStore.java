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

/**
 * The database's own session locks ({@code mode=native}): PostgreSQL advisory locks, MySQL/MariaDB
 * {@code GET_LOCK}. Each hold pins one pooled connection, whose session owns the lock; the lock table
 * still issues the fencing token and records holders for {@code status} and {@code list}.
 *
 * <p>Limits, by the nature of session locks: the lock frees the moment the holder's session ends, so a
 * dropped connection frees it before the holder can know (the hold is reported lost at the next renewal
 * check, which asks the server whether each session still holds its lock). Connection poolers in
 * transaction mode (PgBouncer) break session locks. Holds at once are bounded by {@code poolSize}.
 */
final class NativeLockStore implements LockStore {
    private final JdbcLockStore table;
    private final PooledConnections pool;
    private final SessionLocks locks;
    private final ConcurrentHashMap<String, Pin> pins = new ConcurrentHashMap<>();
    private final StoreTraits traits;

    NativeLockStore(JdbcLockStore table) {
        this.table = table;
        this.pool = (PooledConnections) table.connections;
        this.locks = SessionLocks.forKind(table.uri.kind, table.uri.table);
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

    @Override
    public Attempt tryAcquire(String name, String ownerId, String holder, Duration lease) {
        Pin existing = pins.get(ownerId);
        if (existing != null) {
            return Attempt.acquired(existing.token()); // a retried acquire adopts its own hold
        }
        int capacity = table.uri.poolSize - 1; // one connection stays free for renewal checks and status
        if (pins.size() >= capacity) {
            throw new HoldfastException("native mode holds at most " + capacity + " locks at once per client (poolSize "
                    + table.uri.poolSize + " minus one kept for renewal checks); raise poolSize in the URI or use the lock table (mode=table)");
        }
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
            return row;
        } catch (SQLException e) {
            pool.discard(c); // ends the session, and with it any lock it took
            throw table.errors.failure("cannot acquire '" + name + "'", e);
        }
    }

    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        List<Pin> mine = new ArrayList<>();
        for (HoldRef h : holds) {
            Pin p = pins.get(h.ownerId());
            if (p != null) {
                mine.add(p);
            }
        }
        if (mine.isEmpty()) {
            return Set.of();
        }
        return table.run("check " + mine.size() + " session lock(s)", c -> {
            Set<String> alive = new HashSet<>(locks.stillHeld(c, mine));
            table.dialect.renew(c, holds, lease); // keeps status and list truthful
            return alive;
        });
    }

    @Override
    public boolean release(String name, String ownerId) {
        Pin p = pins.remove(ownerId);
        if (p == null) {
            return false;
        }
        try {
            locks.unlock(p.connection(), name);
            table.dialect.release(p.connection(), name, ownerId);
            p.connection().close();
            return true;
        } catch (SQLException e) {
            pool.discard(p.connection()); // the session ends, which frees the lock
            throw table.errors.failure("cannot release '" + name + "'", e);
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
