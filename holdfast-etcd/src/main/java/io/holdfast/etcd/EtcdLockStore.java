package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.holdfast.LockInfo;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.StoreTraits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Locks on etcd, the way etcd's own {@code concurrency.Mutex} takes them, with the fixes Jepsen's analysis
 * of that mutex called for.
 *
 * <ul>
 *   <li>An attempt is one transaction: if the owner's key {@code PREFIX/NAME!OWNER} ({@code OWNER}: a slot name
 *       reused after the owner's release, see {@link OwnerSlots}) does not exist, create it
 *       attached to the session lease and read the two newest keys of the lock: the owner holds the lock if its
 *       key is the only one, and otherwise waits behind the other, its predecessor. A retried attempt finds the
 *       key and adopts it (reading it and the lock's lowest key instead). An owner already queued re-attempts
 *       with a read-only transaction (no Raft proposal) of its key and its predecessor, and queues again if its
 *       key has gone. The session lease is shared by the client's holds and kept alive in the background; an
 *       attempt sends a keep-alive with its transaction only if the last one is older than a twentieth of the
 *       lease, and the hold's deadline counts from that keep-alive's send time.</li>
 *   <li>The fencing token is the key's create revision: etcd's revisions only grow, so it is greater than
 *       every token issued before for the name, whatever happened to the earlier keys.</li>
 *   <li>A waiter watches only the deletion of the key just before its own (by create revision), as its refused
 *       attempt read it. Being woken proves nothing: the next attempt decides, in one transaction, from the keys
 *       as they are, which also re-checks that the waiter's own key still exists (Jepsen's lesson: a waiter whose
 *       session expired while it waited must not believe it holds the lock).</li>
 *   <li>Release deletes the owner's key if it is still the one the hold created, and records its token; if another
 *       owner of this store waits on the lock, it also reads the lowest key left and, if that is such an owner's, hands
 *       the lock on to it ({@link Releases}).</li>
 *   <li>Renewal sends one keep-alive per session and reads every renewed key (in transactions of at most
 *       128 reads, etcd's default limit), comparing create revisions with the tokens.</li>
 * </ul>
 */
final class EtcdLockStore implements LockStore {
    private static final Logger log = LoggerFactory.getLogger(EtcdLockStore.class);
    private static final long TICK_MILLIS = 100;
    private static final int ATTEMPT_ROUNDS = 4;
    private static final AtomicInteger STORES = new AtomicInteger();

    private final EtcdUri uri;
    private final Client client;
    /** False for an application's client (see {@link EtcdLocks}): {@link #close} leaves it open. */
    private final boolean ownsClient;
    private final KV kv;
    private final EtcdCalls calls;
    private final LockKeys keys;
    private final SessionLeases sessions;
    private final LockInspection inspection;
    private final StoreTraits traits;
    /** Keys this store created and has not seen deleted, by owner id. */
    private final ConcurrentHashMap<String, OwnedKey> owned = new ConcurrentHashMap<>();
    /** The owners' key names, used again after their release (see {@link OwnerSlots}). */
    private final OwnerSlots slots = new OwnerSlots();
    private final HoldRenewal renewal;
    private final PredecessorWatches predecessorWatches;
    private final Releases releases;
    /** Every delete the store issues on its own (a release that failed, an unrenewed hold, an unanswered attempt). */
    private final BackgroundDeletes deletes;
    private final ScheduledExecutorService keeper;
    private volatile boolean closed;

    EtcdLockStore(EtcdUri uri) {
        this(uri, EtcdClients.build(uri), true);
    }

    /**
     * A store on {@code client}; closes it on {@link #close} only if {@code ownsClient}. Either way close revokes
     * this store's session leases and closes its watches.
     */
    EtcdLockStore(EtcdUri uri, Client client, boolean ownsClient) {
        this.uri = uri;
        this.ownsClient = ownsClient;
        this.calls = new EtcdCalls(uri.address);
        this.keys = new LockKeys(uri.prefix);
        this.client = client;
        this.kv = client.getKVClient();
        this.sessions = new SessionLeases(client.getLeaseClient(), calls, uri.requestTimeout);
        this.inspection = new LockInspection(kv, client.getLeaseClient(), keys, calls, uri.requestTimeout);
        this.deletes = new BackgroundDeletes(kv, keys, calls, uri.requestTimeout);
        this.renewal = new HoldRenewal(kv, keys, slots, calls, sessions, uri.requestTimeout, owned);
        this.predecessorWatches = new PredecessorWatches(client.getWatchClient(), kv, keys, calls, uri.requestTimeout);
        this.releases = new Releases(kv, keys, slots, calls, uri.requestTimeout, owned, deletes, predecessorWatches);
        this.traits = new StoreTraits("linearizable: etcd's Raft log orders every acquire (a quorum must accept it, so a "
                + "minority partition cannot acquire); leases run on the etcd leader's clock", true, Duration.ofSeconds(1),
                Duration.ofSeconds(2), true);
        try {
            calls.await(kv.get(keys.all(), GetOption.builder().withLimit(1).withKeysOnly(true).build()), uri.connectTimeout,
                    "connect (read " + uri.prefix + "/)");
        } catch (RuntimeException e) {
            if (ownsClient) {
                client.close();
            }
            throw e;
        }
        int id = STORES.incrementAndGet();
        this.keeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "holdfast-etcd-" + id + "-keeper");
            t.setDaemon(true);
            return t;
        });
        keeper.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public String backend() {
        return EtcdCalls.BACKEND;
    }

    @Override
    public String address() {
        return uri.address;
    }

    @Override
    public StoreTraits traits() {
        return traits;
    }

    // ------------------------------------------------------------------------------------------ acquire

    @Override
    public Attempt tryAcquire(String name, String ownerId, String holder, Duration lease) {
        LockKeys.requireOwnerId(ownerId);
        long start = System.nanoTime();
        ByteSequence own = keys.owner(name, slots.assign(name, ownerId));
        // The owner wants its key again: no background delete may take it. One may already be on its way; then
        // this attempt writes the key, which fails that delete's guard (see BackgroundDeletes).
        boolean mustWrite = deletes.cancel(own);
        try {
            return attempt(name, ownerId, own, holder, lease, start, mustWrite);
        } catch (StoreUnavailableException e) {
            // The transaction may have been applied and its reply lost: the owner may now have a key, queued or even
            // holding. If nobody asks for it again (the core retries, or releases the owner, when it can), it is
            // deleted once the lease has run out, as etcd would if this client had died.
            deletes.inDoubt(own, start + lease.toNanos());
            throw e;
        }
    }

    private Attempt attempt(String name, String ownerId, ByteSequence own, String holder, Duration lease, long start,
                            boolean mustWrite) {
        ByteSequence lockKeys = keys.lock(name);
        String what = "acquire '" + name + "'";
        for (int round = 1; round <= ATTEMPT_ROUNDS; round++) {
            SessionLeases.Session session = sessions.obtain(lease);
            // The hold's deadline counts from a keep-alive of the session sent at most lease/20 ago, or from one sent
            // now with the transaction; either way etcd cannot expire the key before that deadline.
            SessionLeases.KeepAlive keepAlive = sessions.recentKeepAlive(session, lease);
            OwnedKey known = owned.get(ownerId);
            // A queued owner's key exists already: a read-only transaction (a linearizable read, no Raft proposal)
            // reads it and its predecessor. Otherwise create the key if absent; an owner whose key a background
            // delete may be after writes it in either case.
            boolean queued = !mustWrite && known != null && known.name.equals(name) && known.leaseId == session.leaseId;
            long handedOnAt = queued ? releases.handedOnAt(name, known) : 0;
            if (handedOnAt != 0) {
                // The release that freed the lock read, in its own transaction, that this key was then the lowest:
                // nothing to read (see Releases). The deadline still counts from the session's keep-alive.
                if (!sessions.keptAlive(keepAlive, session, what)) {
                    continue;
                }
                return decide(known, null, handedOnAt, start, lease, keepAlive);
            }
            Op put = Op.put(own, LockKeys.bytes(holder), PutOption.builder().withLeaseId(session.leaseId).build());
            Op getOwn = Op.get(own, GetOption.DEFAULT);
            Op getLowest = Op.get(lockKeys, LockKeys.LOWEST);
            CompletableFuture<TxnResponse> txn = queued
                    ? kv.txn().Then(getOwn, Op.get(lockKeys, LockKeys.before(known.createRevision))).commit()
                    : kv.txn()
                    .If(new Cmp(own, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                    .Then(put, Op.get(lockKeys, LockKeys.NEWEST_TWO))
                    .Else(mustWrite ? new Op[] {put, getOwn, getLowest} : new Op[] {getOwn, getLowest})
                    .commit();
            TxnResponse response;
            try {
                response = calls.await(txn, uri.requestTimeout, what);
            } catch (RuntimeException e) {
                if (EtcdCalls.isLeaseNotFound(e.getCause())) {
                    sessions.expired(session); // the put named a lease that is gone: nothing was written
                    continue;
                }
                throw e;
            }
            if (!sessions.keptAlive(keepAlive, session, what)) {
                continue; // the session expired: its keys, ours included, are gone; start again on a new one
            }
            long readAt = response.getHeader().getRevision();
            List<GetResponse> gets = response.getGetResponses();
            if (queued) {
                KeyValue mine = first(gets.get(0));
                if (mine == null || mine.getCreateRevision() != known.createRevision) {
                    // Our queued key is gone (its session expired, or it was deleted): queue again, at the back,
                    // rather than believe the place we had (Jepsen's lesson).
                    owned.remove(ownerId, known);
                    continue;
                }
                return decide(known, first(gets.get(1)), readAt, start, lease, keepAlive);
            }
            if (!response.isSucceeded()) {
                Attempt adopted = adopt(name, ownerId, own, first(gets.get(0)), first(gets.get(1)), session, start, lease,
                        keepAlive, what);
                if (adopted != null) {
                    return adopted;
                }
                continue;
            }
            // The key was created by this transaction: it is the newest, and the next newest is its predecessor.
            List<KeyValue> newest = gets.get(0).getKvs();
            if (newest.isEmpty() || !newest.get(0).getKey().equals(own)) {
                throw calls.unavailable("the transaction to " + what + " did not read the key it created", null);
            }
            OwnedKey created = new OwnedKey(name, own, newest.get(0).getCreateRevision(), session.leaseId);
            owned.put(ownerId, created);
            return decide(created, newest.size() > 1 ? newest.get(1) : null, readAt, start, lease, keepAlive);
        }
        throw calls.unavailable("the session lease for " + what + " expired " + ATTEMPT_ROUNDS + " times in a row", null);
    }

    /** An owner's key that exists, with {@code predecessor} (null: none) read at {@code readAt}: held, or queued. */
    private static Attempt decide(OwnedKey mine, KeyValue predecessor, long readAt, long start, Duration lease,
                                  SessionLeases.KeepAlive keepAlive) {
        if (predecessor == null) {
            mine.holdUntil(start + lease.toNanos());
            return Attempt.acquired(mine.createRevision, keepAlive.sentNanos());
        }
        mine.predecessor(OwnedKey.Predecessor.of(predecessor, readAt));
        return Attempt.busy(null);
    }

    /**
     * The owner's key existed before this attempt (a retry after a lost reply, or a key a background delete was
     * after): {@code mine} as read, {@code head} the lock's lowest key. Null if the attempt must start again.
     */
    private Attempt adopt(String name, String ownerId, ByteSequence own, KeyValue mine, KeyValue head,
                          SessionLeases.Session session, long start, Duration lease, SessionLeases.KeepAlive keepAlive, String what) {
        if (mine == null || head == null) {
            throw calls.unavailable("the transaction to " + what + " read no key of its own", null);
        }
        if (mine.getLease() != session.leaseId) {
            // A key of this owner from another session (another store with the same owner id): its lease is not
            // the one we keep alive, so drop it and queue again on ours.
            deletes.deleteStaleNow(mine.getKey(), mine.getCreateRevision(), what);
            return null;
        }
        OwnedKey o = owned.get(ownerId);
        if (o == null || o.createRevision != mine.getCreateRevision() || o.leaseId != mine.getLease()) {
            o = new OwnedKey(name, own, mine.getCreateRevision(), mine.getLease());
            owned.put(ownerId, o);
        }
        if (head.getKey().equals(own)) {
            o.holdUntil(start + lease.toNanos());
            return Attempt.acquired(mine.getCreateRevision(), keepAlive.sentNanos());
        }
        o.predecessor(null); // not read: the waiter's watch looks it up
        return Attempt.busy(null);
    }

    // ------------------------------------------------------------------------------------------ renew

    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        return renewal.renew(holds, lease);
    }

    // ------------------------------------------------------------------------------------------ release

    /** {@inheritDoc} See {@link Releases}. */
    @Override
    public boolean release(String name, String ownerId) {
        LockKeys.requireOwnerId(ownerId);
        return releases.release(name, ownerId);
    }

    // ------------------------------------------------------------------------------------------ watch

    /**
     * {@inheritDoc}
     *
     * <p>The watch is on the key just before the owner's: see {@link PredecessorWatches}.
     */
    @Override
    public AutoCloseable watchReleases(String name, String ownerId, Runnable onRelease) {
        LockKeys.requireOwnerId(ownerId);
        return predecessorWatches.register(name, ownerId, owned.get(ownerId), onRelease);
    }

    // ------------------------------------------------------------------------------------------ operators

    @Override
    public Optional<LockInfo> inspect(String name) {
        return inspection.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        return inspection.list(prefix, limit);
    }

    @Override
    public boolean forceRelease(String name) {
        return inspection.forceRelease(name);
    }

    // ------------------------------------------------------------------------------------------ helpers

    private static KeyValue first(GetResponse r) {
        return r.getKvs().isEmpty() ? null : r.getKvs().get(0);
    }

    /**
     * The keeper, every 100 ms, without blocking: background keep-alives of the sessions; deletion of held
     * keys whose owner stopped renewing them (a hold taken without renewal, or one the core gave up), so
     * that they do not live on with a session other holds keep alive; and retries of failed deletions.
     */
    private void tick() {
        if (closed) {
            return;
        }
        try {
            sessions.keepAliveDue();
            long now = System.nanoTime();
            for (Map.Entry<String, OwnedKey> e : owned.entrySet()) {
                OwnedKey o = e.getValue();
                if (o.reapIfUnrenewed(now)) {
                    owned.remove(e.getKey(), o);
                    log.debug("deleting the key of an unrenewed hold on '{}' (token {})", o.name, o.createRevision);
                    deletes.unrenewed(o.key, o.createRevision, o.name);
                }
            }
            deletes.run(now);
        } catch (RuntimeException e) {
            log.debug("keeper round failed", e);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        keeper.shutdownNow();
        // Revoking the sessions deletes whatever keys are left: queued waiters, and holds the client could not release.
        sessions.revokeAll(uri.requestTimeout);
        predecessorWatches.closeAll();
        if (ownsClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "EtcdLockStore[" + uri.address + "]";
    }
}
