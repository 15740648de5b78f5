package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.holdfast.LockInfo;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.StoreTraits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
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
 *   <li>An attempt is one transaction: if the owner's key {@code PREFIX/NAME!OWNER} does not exist, create it
 *       attached to the session lease, then read it and the lock's key with the lowest create revision. The
 *       owner holds the lock if that lowest key is its own; otherwise its key stays, queued by create
 *       revision. A retried attempt finds the key and adopts it. The session lease gets a keep-alive sent
 *       together with the transaction, so a granted hold's local deadline starts no earlier than etcd's. An
 *       owner already queued re-attempts with a read-only transaction (no Raft proposal) of the same two reads,
 *       and queues again if its key has gone.</li>
 *   <li>The fencing token is the key's create revision: etcd's revisions only grow, so it is greater than
 *       every token issued before for the name, whatever happened to the earlier keys.</li>
 *   <li>A waiter watches only the deletion of the key just before its own (by create revision). Being woken
 *       proves nothing: the next attempt decides, in one transaction, from the keys as they are, which also
 *       re-checks that the waiter's own key still exists (Jepsen's lesson: a waiter whose session expired
 *       while it waited must not believe it holds the lock).</li>
 *   <li>Renewal sends one keep-alive per session and reads every renewed key (in transactions of at most
 *       128 reads, etcd's default limit), comparing create revisions with the tokens.</li>
 * </ul>
 */
final class EtcdLockStore implements LockStore {
    private static final Logger log = LoggerFactory.getLogger(EtcdLockStore.class);
    /** etcd's default {@code --max-txn-ops}. */
    static final int MAX_TXN_OPS = 128;
    private static final int LIST_PAGE = 500;
    private static final long TICK_MILLIS = 100;
    private static final int ATTEMPT_ROUNDS = 4;
    private static final GetOption LOWEST = GetOption.builder().isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build();
    private static final AtomicInteger STORES = new AtomicInteger();

    private final EtcdUri uri;
    private final Client client;
    /** False for an application's client (see {@link EtcdLocks}): {@link #close} leaves it open. */
    private final boolean ownsClient;
    private final KV kv;
    private final Watch watches;
    private final io.etcd.jetcd.Lease leaseClient;
    private final EtcdCalls calls;
    private final LockKeys keys;
    private final SessionLeases sessions;
    private final StoreTraits traits;
    /** Keys this store created and has not seen deleted, by owner id. */
    private final ConcurrentHashMap<String, Owned> owned = new ConcurrentHashMap<>();
    /** Open watches of waiting owners, by owner id. */
    private final ConcurrentHashMap<String, PredecessorWatch> predecessorWatches = new ConcurrentHashMap<>();
    /** Every delete the store issues on its own (a release that failed, an unrenewed hold, an unanswered attempt). */
    private final BackgroundDeletes deletes;
    private final ScheduledExecutorService keeper;
    private volatile boolean closed;

    /** A key this store created for an owner. */
    private static final class Owned {
        final String name;
        final ByteSequence key;
        final long createRevision;
        final long leaseId;
        /** While held: until when (System.nanoTime) the owner renewed it; the keeper deletes it after. */
        private long keepUntilNanos;
        volatile boolean held;
        /** The keeper gave it up: no renewal may report it renewed any more. Guarded by this. */
        private boolean reaped;

        Owned(String name, ByteSequence key, long createRevision, long leaseId) {
            this.name = name;
            this.key = key;
            this.createRevision = createRevision;
            this.leaseId = leaseId;
        }

        /** Keeps the hold until {@code untilNanos}; false if the keeper has already given it up. */
        synchronized boolean keepUntil(long untilNanos) {
            if (reaped) {
                return false;
            }
            keepUntilNanos = untilNanos;
            return true;
        }

        /** Gives up a hold not renewed by {@code nowNanos}; true if this call did (the caller deletes its key). */
        synchronized boolean reapIfUnrenewed(long nowNanos) {
            if (!held || reaped || nowNanos - keepUntilNanos <= 0) {
                return false;
            }
            reaped = true;
            return true;
        }
    }

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
        this.watches = client.getWatchClient();
        this.leaseClient = client.getLeaseClient();
        this.sessions = new SessionLeases(leaseClient, calls, uri.requestTimeout);
        this.deletes = new BackgroundDeletes(kv, keys, calls, uri.requestTimeout);
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
        requireOwnerId(ownerId);
        long start = System.nanoTime();
        ByteSequence own = keys.owner(name, ownerId);
        // The owner wants its key again: no background delete may take it. One may already be on its way; then
        // this attempt writes the key, which fails that delete's guard (see BackgroundDeletes).
        boolean mustWrite = deletes.cancel(own);
        try {
            return attempt(name, ownerId, holder, lease, start, mustWrite);
        } catch (StoreUnavailableException e) {
            // The transaction may have been applied and its reply lost: the owner may now have a key, queued or even
            // holding. If nobody asks for it again (the core retries, or releases the owner, when it can), it is
            // deleted once the lease has run out, as etcd would if this client had died.
            deletes.inDoubt(own, start + lease.toNanos());
            throw e;
        }
    }

    private Attempt attempt(String name, String ownerId, String holder, Duration lease, long start, boolean mustWrite) {
        ByteSequence own = keys.owner(name, ownerId);
        ByteSequence lockKeys = keys.lock(name);
        String what = "acquire '" + name + "'";
        for (int round = 1; round <= ATTEMPT_ROUNDS; round++) {
            SessionLeases.Session session = sessions.obtain(lease);
            // The keep-alive travels with the transaction: it renews the session from now on, so the hold's
            // local deadline (counted from before this call) passes before etcd can expire the key.
            CompletableFuture<LeaseKeepAliveResponse> keptAlive = sessions.keepAliveOnce(session);
            Owned known = owned.get(ownerId);
            // A queued owner's key exists already: a read-only transaction (a linearizable read, no Raft
            // proposal) decides, and finds out if the key has gone meanwhile. Otherwise create it if absent.
            // An owner whose key a background delete may be after writes it in either case.
            boolean queued = !mustWrite && known != null && known.name.equals(name) && known.leaseId == session.leaseId;
            Op put = Op.put(own, LockKeys.bytes(holder), PutOption.builder().withLeaseId(session.leaseId).build());
            Op[] reads = {Op.get(own, GetOption.DEFAULT), Op.get(lockKeys, LOWEST)};
            CompletableFuture<TxnResponse> txn = queued
                    ? kv.txn().Then(reads).commit()
                    : kv.txn()
                    .If(new Cmp(own, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                    .Then(put, reads[0], reads[1])
                    .Else(mustWrite ? new Op[] {put, reads[0], reads[1]} : reads)
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
            if (!keptAlive(keptAlive, session, what)) {
                continue; // the session expired: its keys, ours included, are gone; start again on a new one
            }
            KeyValue mine = first(response.getGetResponses().get(0));
            KeyValue head = first(response.getGetResponses().get(1));
            if (queued && (mine == null || mine.getCreateRevision() != known.createRevision)) {
                // Our queued key is gone (its session expired, or it was deleted): queue again, at the back,
                // rather than believe the place we had (Jepsen's lesson).
                owned.remove(ownerId, known);
                continue;
            }
            if (mine == null || head == null) {
                throw calls.unavailable("the transaction to " + what + " read no key of its own", null);
            }
            if (mine.getLease() != session.leaseId) {
                // A key of this owner from another session (another store with the same owner id): its lease
                // is not the one we keep alive, so drop it and queue again on ours.
                deletes.deleteStaleNow(mine.getKey(), mine.getCreateRevision(), what);
                continue;
            }
            Owned o = owned.computeIfAbsent(ownerId, id -> new Owned(name, own, mine.getCreateRevision(), mine.getLease()));
            if (o.createRevision != mine.getCreateRevision() || o.leaseId != mine.getLease()) {
                o = new Owned(name, own, mine.getCreateRevision(), mine.getLease());
                owned.put(ownerId, o);
            }
            if (head.getKey().equals(own)) {
                o.keepUntil(start + lease.toNanos());
                o.held = true;
                return Attempt.acquired(mine.getCreateRevision());
            }
            return Attempt.busy(null);
        }
        throw calls.unavailable("the session lease for " + what + " expired " + ATTEMPT_ROUNDS + " times in a row", null);
    }

    /** Waits for a keep-alive sent with a transaction; false if it found the session lease expired. */
    private boolean keptAlive(CompletableFuture<LeaseKeepAliveResponse> keepAlive, SessionLeases.Session session, String what) {
        try {
            calls.await(keepAlive, uri.requestTimeout, "keep the session lease alive to " + what);
            return true;
        } catch (RuntimeException e) {
            if (EtcdCalls.isLeaseNotFound(e.getCause())) {
                sessions.expired(session);
                return false;
            }
            throw e;
        }
    }

    private static void requireOwnerId(String ownerId) {
        if (ownerId == null || ownerId.isEmpty() || ownerId.length() > 200 || ownerId.indexOf(LockKeys.SEPARATOR) >= 0
                || ownerId.indexOf('/') >= 0) {
            throw new IllegalArgumentException("owner id '" + ownerId + "' is not allowed; allowed: 1 to 200 characters without '"
                    + LockKeys.SEPARATOR + "' or '/'");
        }
    }

    // ------------------------------------------------------------------------------------------ renew

    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        if (holds.isEmpty()) {
            return Set.of();
        }
        long start = System.nanoTime();
        SessionLeases.Session session = sessions.current(lease);
        if (session == null) {
            // The session these holds were attached to expired: etcd deleted their keys.
            for (HoldRef ref : holds) {
                owned.remove(ref.ownerId());
            }
            return Set.of();
        }
        Duration timeout = renewTimeout(lease);
        String what = "renew " + holds.size() + " lease(s)";
        CompletableFuture<LeaseKeepAliveResponse> keepAlive = sessions.keepAliveOnce(session);
        List<HoldRef> all = new ArrayList<>(holds);
        List<CompletableFuture<TxnResponse>> reads = new ArrayList<>();
        for (int from = 0; from < all.size(); from += MAX_TXN_OPS) {
            List<HoldRef> chunk = all.subList(from, Math.min(all.size(), from + MAX_TXN_OPS));
            Op[] gets = new Op[chunk.size()];
            for (int i = 0; i < gets.length; i++) {
                gets[i] = Op.get(keys.owner(chunk.get(i).name(), chunk.get(i).ownerId()), GetOption.DEFAULT);
            }
            reads.add(kv.txn().Then(gets).commit());
        }
        boolean alive;
        try {
            calls.await(keepAlive, timeout, what);
            alive = true;
        } catch (RuntimeException e) {
            if (!EtcdCalls.isLeaseNotFound(e.getCause())) {
                throw e;
            }
            sessions.expired(session);
            alive = false;
        }
        Set<String> renewed = new HashSet<>();
        for (int c = 0; c < reads.size(); c++) {
            TxnResponse r = calls.await(reads.get(c), timeout, what);
            if (!alive) {
                continue;
            }
            List<GetResponse> gets = r.getGetResponses();
            for (int i = 0; i < gets.size(); i++) {
                HoldRef ref = all.get(c * MAX_TXN_OPS + i);
                KeyValue kv = first(gets.get(i));
                // A hold this store no longer tracks (released, or given up by the keeper, which deletes its key
                // in the background) is not renewed, even if this read still found its key.
                Owned o = owned.get(ref.ownerId());
                if (kv != null && kv.getCreateRevision() == ref.fencingToken() && kv.getLease() == session.leaseId
                        && o != null && o.keepUntil(start + lease.toNanos())) {
                    renewed.add(ref.ownerId());
                } else {
                    owned.remove(ref.ownerId()); // gone: force-released, or its session expired
                }
            }
        }
        return renewed;
    }

    private Duration renewTimeout(Duration lease) {
        Duration third = lease.dividedBy(3);
        Duration floor = Duration.ofMillis(500);
        Duration t = third.compareTo(floor) < 0 ? floor : third;
        return t.compareTo(uri.requestTimeout) < 0 ? t : uri.requestTimeout;
    }

    // ------------------------------------------------------------------------------------------ release

    @Override
    public boolean release(String name, String ownerId) {
        requireOwnerId(ownerId);
        ByteSequence own = keys.owner(name, ownerId);
        String what = "release '" + name + "'";
        deletes.cancel(own); // this call deletes the key itself, or hands it back below
        Owned o = owned.remove(ownerId);
        List<Op> then = new ArrayList<>(List.of(Op.get(keys.lock(name), LOWEST), Op.delete(own, DeleteOption.DEFAULT)));
        if (o != null && o.held) {
            then.add(Op.put(keys.lastToken(name), token(o.createRevision), PutOption.DEFAULT));
        }
        CompletableFuture<TxnResponse> txn = kv.txn()
                .If(new Cmp(own, Cmp.Op.GREATER, CmpTarget.createRevision(0)))
                .Then(then.toArray(Op[]::new))
                .commit();
        TxnResponse r;
        try {
            r = calls.await(txn, uri.requestTimeout, what);
        } catch (StoreUnavailableException e) {
            // The key must not outlive the owner's interest in it (nothing else deletes a queued key while the
            // session lives): it is deleted in the background once the cluster answers again.
            deletes.afterFailedRelease(own, o == null ? 0L : o.createRevision, o != null && o.held ? name : null);
            throw e;
        }
        if (!r.isSucceeded()) {
            return false; // already gone
        }
        KeyValue head = first(r.getGetResponses().get(0));
        boolean wasHolder = head != null && head.getKey().equals(own);
        if (wasHolder && (o == null || !o.held)) {
            // Released for an owner this store did not see acquire (a retry from elsewhere): record its token
            // now, unless a later release already recorded a newer one.
            ByteSequence last = keys.lastToken(name);
            calls.await(kv.txn().If(new Cmp(last, Cmp.Op.LESS, CmpTarget.modRevision(r.getHeader().getRevision() + 1)))
                    .Then(Op.put(last, token(head.getCreateRevision()), PutOption.DEFAULT)).commit(), uri.requestTimeout, what);
        }
        return wasHolder;
    }

    private static ByteSequence token(long revision) {
        return LockKeys.bytes(Long.toString(revision));
    }

    // ------------------------------------------------------------------------------------------ watch

    /**
     * {@inheritDoc}
     *
     * <p>The watch is on the key just before the owner's, which stays its predecessor until it is deleted (keys
     * created later have higher revisions). So while an owner's watch is open and has not fired, a new
     * registration for the same owner (the core registers again after every refused attempt) joins it without
     * a call to etcd.
     */
    @Override
    public AutoCloseable watchReleases(String name, String ownerId, Runnable onRelease) {
        requireOwnerId(ownerId);
        PredecessorWatch open = predecessorWatches.get(ownerId);
        if (open != null && open.name.equals(name) && open.add(onRelease)) {
            return () -> open.remove(onRelease);
        }
        ByteSequence own = keys.owner(name, ownerId);
        String what = "find the waiter before '" + ownerId + "' on '" + name + "'";
        Owned o = owned.get(ownerId);
        long myRevision = o == null ? 0 : o.createRevision;
        if (myRevision == 0) {
            KeyValue mine = first(calls.await(kv.get(own), uri.requestTimeout, what));
            if (mine == null) {
                onRelease.run(); // no key yet (or any more): the next attempt decides at once
                return () -> { };
            }
            myRevision = mine.getCreateRevision();
        }
        GetOption before = GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND).withLimit(1).withMaxCreateRevision(myRevision - 1).build();
        // One read of both: is our key still there, and which key is just before it?
        TxnResponse r = calls.await(kv.txn().Then(Op.get(own, GetOption.DEFAULT), Op.get(keys.lock(name), before)).commit(),
                uri.requestTimeout, what);
        KeyValue mine = first(r.getGetResponses().get(0));
        KeyValue predecessor = first(r.getGetResponses().get(1));
        if (mine == null || mine.getCreateRevision() != myRevision || predecessor == null
                || predecessor.getCreateRevision() >= myRevision) {
            // Our key is gone, or nobody is before us: the next attempt decides at once.
            onRelease.run();
            return () -> { };
        }
        PredecessorWatch watch = new PredecessorWatch(ownerId, name);
        watch.add(onRelease);
        PredecessorWatch replaced = predecessorWatches.put(ownerId, watch);
        if (replaced != null) {
            replaced.close(); // fired or abandoned; its registrations were told or are being closed
        }
        watch.start(predecessor.getKey(), predecessor.getCreateRevision(), r.getHeader().getRevision());
        return () -> watch.remove(onRelease);
    }

    /**
     * One waiting owner's watch on the deletion of its predecessor key, shared by the core's registrations
     * for that owner. It fires once: on the deletion, or on any doubt (a broken watch), and then closes.
     */
    private final class PredecessorWatch {
        final String ownerId;
        final String name;
        // Guarded by this.
        private final List<Runnable> listeners = new ArrayList<>();
        private boolean done;
        private Watch.Watcher watcher;

        PredecessorWatch(String ownerId, String name) {
            this.ownerId = ownerId;
            this.name = name;
        }

        /** Adds a registration; false if this watch already fired or closed. */
        synchronized boolean add(Runnable listener) {
            if (done) {
                return false;
            }
            listeners.add(listener);
            return true;
        }

        /** Removes a registration; the last one closes the watch. */
        void remove(Runnable listener) {
            synchronized (this) {
                listeners.remove(listener);
                if (done || !listeners.isEmpty()) {
                    return;
                }
            }
            close();
        }

        void fire() {
            List<Runnable> toTell;
            synchronized (this) {
                if (done) {
                    return;
                }
                toTell = new ArrayList<>(listeners);
            }
            close();
            toTell.forEach(Runnable::run);
        }

        void close() {
            Watch.Watcher w;
            synchronized (this) {
                done = true;
                listeners.clear();
                w = watcher;
                watcher = null;
            }
            predecessorWatches.remove(ownerId, this);
            if (w != null) {
                w.close();
            }
        }

        /**
         * Watches {@code key} from now rather than from the lookup's revision {@code lookedAt}: etcd serves a
         * watch that starts in the past from a catch-up loop that runs every 100 ms, one from now at once. A
         * deletion between the lookup and the watch's start is caught by reading the key again once the watch
         * exists.
         */
        void start(ByteSequence key, long keyRevision, long lookedAt) {
            Watch.Watcher w = watches.watch(key,
                    WatchOption.builder().withNoPut(true).withCreateNotify(true).withRequireLeader(true).build(),
                    new Watch.Listener() {
                        @Override
                        public void onNext(io.etcd.jetcd.watch.WatchResponse response) {
                            if (response.isCreatedNotify()) {
                                if (response.getHeader().getRevision() > lookedAt) {
                                    kv.get(key).whenComplete((now, error) -> {
                                        if (error != null || now.getKvs().isEmpty()
                                                || now.getKvs().get(0).getCreateRevision() != keyRevision) {
                                            fire();
                                        }
                                    });
                                }
                                return;
                            }
                            for (WatchEvent event : response.getEvents()) {
                                if (event.getEventType() == WatchEvent.EventType.DELETE) {
                                    fire();
                                    return;
                                }
                            }
                        }

                        @Override
                        public void onError(Throwable error) {
                            // A broken watch may have missed the deletion: let the waiter look for itself.
                            fire();
                        }

                        @Override
                        public void onCompleted() {
                            // Closed by us, or the client is closing: nothing to report.
                        }
                    });
            boolean closeNow;
            synchronized (this) {
                closeNow = done;
                if (!done) {
                    watcher = w;
                }
            }
            if (closeNow) {
                w.close();
            }
        }
    }

    // ------------------------------------------------------------------------------------------ operators

    @Override
    public Optional<LockInfo> inspect(String name) {
        TxnResponse r = calls.await(kv.txn().Then(Op.get(keys.lock(name), LOWEST), Op.get(keys.lastToken(name), GetOption.DEFAULT))
                .commit(), uri.requestTimeout, "inspect '" + name + "'");
        KeyValue head = first(r.getGetResponses().get(0));
        if (head == null) {
            KeyValue last = first(r.getGetResponses().get(1));
            // Free. etcd has no record of a lock nobody ever released through Holdfast.
            return last == null ? Optional.empty()
                    : Optional.of(new LockInfo(name, false, null, null, parseToken(last), null));
        }
        Map<Long, Duration> remaining = leaseRemaining(List.of(head.getLease()));
        return Optional.of(info(name, head, remaining));
    }

    private static long parseToken(KeyValue last) {
        try {
            return Long.parseLong(last.getValue().toString(StandardCharsets.UTF_8));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        // Keys sort by lock name first, so the locks come in name order; a lock's holder is its lowest
        // create revision, whichever of its keys that is.
        Map<String, KeyValue> holders = new LinkedHashMap<>();
        ByteSequence start = keys.namesStartingWith(prefix);
        ByteSequence end = io.etcd.jetcd.options.OptionsUtil.prefixEndOf(start);
        boolean more = true;
        String last = null;
        while (more) {
            GetResponse page = calls.await(kv.get(start, GetOption.builder().withRange(end).withLimit(LIST_PAGE).build()),
                    uri.requestTimeout, "list locks");
            for (KeyValue k : page.getKvs()) {
                String name = keys.nameOf(k.getKey());
                if (name == null || !name.startsWith(prefix)) {
                    continue;
                }
                if (!name.equals(last) && holders.size() == limit) {
                    more = false; // every key of the last wanted lock has been seen
                    break;
                }
                last = name;
                KeyValue current = holders.get(name);
                if (current == null || k.getCreateRevision() < current.getCreateRevision()) {
                    holders.put(name, k);
                }
            }
            if (more && page.isMore() && !page.getKvs().isEmpty()) {
                ByteSequence lastKey = page.getKvs().get(page.getKvs().size() - 1).getKey();
                start = lastKey.concat(ByteSequence.from(new byte[] {0}));
            } else {
                more = false;
            }
        }
        List<Long> leases = new ArrayList<>();
        for (KeyValue k : holders.values()) {
            leases.add(k.getLease());
        }
        Map<Long, Duration> remaining = leaseRemaining(leases);
        List<LockInfo> out = new ArrayList<>();
        for (Map.Entry<String, KeyValue> e : holders.entrySet()) {
            out.add(info(e.getKey(), e.getValue(), remaining));
        }
        return out;
    }

    @Override
    public boolean forceRelease(String name) {
        String what = "force-release '" + name + "'";
        GetResponse r = calls.await(kv.get(keys.lock(name), LOWEST), uri.requestTimeout, what);
        KeyValue head = first(r);
        if (head == null) {
            return false;
        }
        TxnResponse deleted = calls.await(kv.txn()
                .If(new Cmp(head.getKey(), Cmp.Op.EQUAL, CmpTarget.createRevision(head.getCreateRevision())))
                .Then(Op.delete(head.getKey(), DeleteOption.DEFAULT),
                        Op.put(keys.lastToken(name), token(head.getCreateRevision()), PutOption.DEFAULT))
                .commit(), uri.requestTimeout, what);
        return deleted.isSucceeded();
    }

    private LockInfo info(String name, KeyValue head, Map<Long, Duration> remaining) {
        Duration left = remaining.get(head.getLease());
        String owner = keys.ownerOf(head.getKey());
        if (left == null) {
            // Its lease is already gone: etcd is deleting the key; the lock is free.
            return new LockInfo(name, false, null, null, head.getCreateRevision(), null);
        }
        return new LockInfo(name, true, head.getValue().toString(StandardCharsets.UTF_8), owner, head.getCreateRevision(), left);
    }

    /**
     * Time left on each lease, by the etcd leader's clock; a lease that no longer exists is absent. etcd
     * reports whole seconds, rounded down, so this reports the upper end of that second (never more than
     * the lease's granted TTL): a lease that exists has a moment left even when etcd says 0.
     */
    private Map<Long, Duration> leaseRemaining(List<Long> leaseIds) {
        Map<Long, CompletableFuture<LeaseTimeToLiveResponse>> asked = new HashMap<>();
        for (Long id : leaseIds) {
            if (id != 0 && !asked.containsKey(id)) {
                asked.put(id, leaseClient.timeToLive(id, LeaseOption.DEFAULT));
            }
        }
        Map<Long, Duration> out = new HashMap<>();
        for (Map.Entry<Long, CompletableFuture<LeaseTimeToLiveResponse>> e : asked.entrySet()) {
            LeaseTimeToLiveResponse ttl = calls.await(e.getValue(), uri.requestTimeout, "read a lease's time to live");
            if (ttl.getTTL() >= 0 && ttl.getGrantedTTL() > 0) {
                out.put(e.getKey(), Duration.ofSeconds(Math.min(ttl.getTTL() + 1, ttl.getGrantedTTL())));
            }
        }
        return out;
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
            for (Map.Entry<String, Owned> e : owned.entrySet()) {
                Owned o = e.getValue();
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
        for (PredecessorWatch w : new ArrayList<>(predecessorWatches.values())) {
            w.close();
        }
        if (ownsClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "EtcdLockStore[" + uri.address + "]";
    }
}
