package io.holdfast.zookeeper;

import io.holdfast.LockInfo;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.Renewals;
import io.holdfast.spi.StoreTraits;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Locks as queues of ephemeral-sequential nodes (see {@link LockNodes} for the layout).
 *
 * <ul>
 *   <li><b>Acquire</b>: create {@code DIR/~OWNER~} (ephemeral, sequential) and list {@code DIR}, both
 *       sent at once, so ZooKeeper answers them in one round trip; the lock is held if the node is the
 *       lowest ({@link QueuePosition}). Otherwise the node stays queued ({@link StoreTraits#queuesWaiters()}),
 *       and the owner's next attempt only lists {@code DIR} again. A create whose reply was lost is never
 *       blindly repeated ({@link QueueNodes}). A node that belongs to an earlier session of this client,
 *       or that vanished, is replaced by a new one.</li>
 *   <li><b>Fencing token</b>: the node's {@code czxid}, the zxid of the transaction that created it:
 *       global to the ensemble and strictly increasing, also across the deletion and re-creation of the
 *       lock's directory (where the sequence suffix starts again from zero).</li>
 *   <li><b>Lease</b>: a hold lives in a session whose timeout is the lease (one session per lease
 *       length in use; a lease longer than the servers grant a session is refused). Renewal proves that
 *       the ensemble's leader heard the session ({@link ZkRenewal}). A hold whose lease is not renewed is
 *       deleted by this client shortly after the lease runs out ({@link NodeReaper}).</li>
 *   <li><b>Release</b>: delete the owner's node; a delete that cannot be sent or gets no answer is
 *       retried in the background until ZooKeeper answers ({@link NodeReaper}).</li>
 *   <li><b>Waiting</b>: a waiter watches only its predecessor's node; its deletion wakes that one
 *       waiter.</li>
 *   <li><b>Parents</b>: lock directories are container nodes, which the server deletes once empty.</li>
 * </ul>
 */
final class ZooKeeperLockStore implements LockStore {
    static final String BACKEND = "zookeeper";
    /** Stores open in this JVM, for tests of this package (session expiry, wake-up counts). */
    static final Set<ZooKeeperLockStore> OPEN = ConcurrentHashMap.newKeySet();
    private static final long LOCAL_ANSWER_NANOS = TimeUnit.SECONDS.toNanos(1);

    final ZooKeeperUri uri;
    private final StoreTraits traits;
    private final long requestTimeoutMs;
    private final SessionPool pool;
    private final Session first;
    private final ScheduledThreadPoolExecutor timers;
    final NodeReaper reaper;
    private final QueueNodes queue;
    private final ZkRenewal renewal;
    private final ZkAdmin admin;
    /** Release callbacks run (watch events, or a predecessor found gone when watched). */
    final LongAdder wakeUps = new LongAdder();
    /** Watch events received for watched predecessors, whether or not their waiter still waited. */
    final LongAdder watchEvents = new LongAdder();
    private volatile boolean closed;

    ZooKeeperLockStore(ZooKeeperUri uri) {
        this.uri = uri;
        List<ACL> acl = uri.digest == null ? ZooDefs.Ids.OPEN_ACL_UNSAFE : ZooDefs.Ids.CREATOR_ALL_ACL;
        this.requestTimeoutMs = uri.connectTimeout.toMillis();
        Duration minLease = Duration.ofSeconds(1);
        this.pool = new SessionPool(uri, minLease, wakeUps, watchEvents);
        this.traits = new StoreTraits("linearizable: the ensemble's leader orders every create and delete by quorum; "
                + "a hold lives in a ZooKeeper session whose timeout is its lease", true, minLease, Duration.ofSeconds(3), true)
                .withMaxLease(Duration.ofMillis(pool.longestSessionMs), SessionPool.MAX_LEASE_LIMITED_BY);
        this.first = pool.first;
        this.timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "holdfast-zk-leases");
            t.setDaemon(true);
            return t;
        });
        this.timers.setRemoveOnCancelPolicy(true);
        this.reaper = new NodeReaper(timers);
        this.queue = new QueueNodes(acl, requestTimeoutMs, reaper);
        this.renewal = new ZkRenewal(queue::get, queue::current, reaper, timers, requestTimeoutMs);
        this.admin = new ZkAdmin(uri, first, requestTimeoutMs);
        OPEN.add(this);
    }

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public String address() {
        return uri.address;
    }

    @Override
    public StoreTraits traits() {
        return traits;
    }

    /**
     * The session for holds of {@code lease}, opened on first use.
     *
     * @throws IllegalArgumentException if the servers grant no session as long as the lease
     */
    Session sessionFor(Duration lease) {
        return pool.forLease(lease);
    }

    /** The sessions of this store, for tests. */
    Collection<Session> sessions() {
        return pool.all();
    }

    // ---------------------------------------------------------------------------------------------
    // Acquire

    @Override
    public Attempt tryAcquire(String name, String ownerId, String holder, Duration lease) {
        checkOpen();
        long started = System.nanoTime();
        Session s = sessionFor(lease);
        ZooKeeper zk = s.zk(requestTimeoutMs);
        long sid = zk.getSessionId();
        String dir = LockNodes.dir(uri.basePath, name);
        String what = "acquire '" + name + "'";
        QueueNode node = queue.get(ownerId);
        if (node != null && (node.sessionId != sid || !node.dir.equals(dir))) {
            // Queued in an earlier session: that node dies with it (or is already gone). Queue again.
            queue.forget(node);
            reaper.delete(node.session, node.sessionId, node.path);
            node = null;
        }
        List<String> children = null;
        boolean sent = false;
        boolean fresh = false; // the listing follows this call's own create on the same session
        boolean caughtUp = false; // the listing follows a sync sent after the predecessor was seen gone
        try {
            if (node != null) {
                String watched = node.predecessor == null ? null : node.dir + "/" + node.predecessor;
                CompletableFuture<List<String>> prefetched = node.prefetched.getAndSet(null);
                if (prefetched != null) {
                    children = listing(s, prefetched, what); // synced and fetched the moment the predecessor went away
                    caughtUp = children != null;
                } else if (!node.acquired && watched != null && s.armed(watched) && started - node.listedAtNanos < LOCAL_ANSWER_NANOS) {
                    // The predecessor's watch is set and has not fired: still queued behind it. Within a
                    // second of the last listing the answer needs no request; a lost event costs a poll then.
                    return Attempt.busy(null);
                }
                if (children == null) {
                    children = QueueNodes.children(s, zk, dir, what);
                    sent = true;
                }
                node.listedAtNanos = started;
                if (!children.contains(node.child)) {
                    queue.forget(node); // deleted: force-released, or its lease timer fired; queue again
                    node = null;
                }
            }
            if (node == null && queue.uncertain(ownerId)) {
                if (children == null) {
                    children = QueueNodes.children(s, zk, dir, what);
                    sent = true;
                }
                node = queue.adopt(s, zk, sid, name, dir, ownerId, lease.toMillis(), children);
            }
            if (node == null) {
                QueueNodes.Created created = queue.createAndList(s, zk, name, dir, ownerId,
                        LockNodes.data(holder, lease.toMillis(), s.negotiatedTimeoutMs()), lease.toMillis());
                node = created.node();
                children = created.children();
                node.listedAtNanos = started;
                sent = true;
                fresh = true;
            }
            if (!fresh && !caughtUp && QueuePosition.of(children, node.child).state() == QueuePosition.State.HELD) {
                children = caughtUpListing(s, zk, dir, what);
                sent = true;
            }
        } catch (KeeperException e) {
            throw s.failure(what, e);
        }
        return evaluate(node, children, started, sent);
    }

    /**
     * The listing again, after a {@code sync}, before a waiter's turn is taken as a grant. A waiter's listing comes
     * from its session's server, perhaps a follower still applying what the leader committed while the two were cut
     * off: the predecessor's delete can be applied there a moment before the close of this very session, which the
     * leader expired meanwhile (the zk3 torture topology saw a waiter take its turn that way after a leader
     * partition healed, beside the next owner: its session's close followed in the same backlog). A {@code sync}
     * completes only once the follower has applied everything the leader had proposed when the sync reached it, so
     * after it the node of an expired session is gone (or the sync fails as expired). A listing that follows this
     * call's own create needs none: the create itself went through the leader after everything before it. Nor does
     * the listing a wake-up fetched ({@link #prefetch}): it was already taken behind a {@code sync} sent after the
     * predecessor was seen gone. The {@code sync} and the listing are sent together (one round trip).
     */
    private List<String> caughtUpListing(Session s, ZooKeeper zk, String dir, String what) throws KeeperException {
        return s.await(s.syncedChildren(zk, dir), requestTimeoutMs, what + " (sync and list)");
    }

    /** Held if no other owner's node is lower; else queued behind its predecessor. The owner's duplicates go. */
    private Attempt evaluate(QueueNode node, List<String> children, long startedNanos, boolean sent) {
        QueuePosition position = QueuePosition.of(children, node.child);
        for (String duplicate : position.duplicates()) {
            reaper.delete(node.session, node.sessionId, node.dir + "/" + duplicate);
        }
        node.predecessor = position.predecessor();
        switch (position.state()) {
            case HELD -> {
                node.acquired = true;
                renewal.acquired(node, startedNanos, sent);
                return Attempt.acquired(node.czxid);
            }
            case GONE -> {
                return Attempt.busy(null); // vanished between create and list; the next attempt queues again
            }
            default -> {
                return Attempt.busy(null);
            }
        }
    }

    /** A listing requested ahead (null if the directory is gone or the request failed: list again). */
    private List<String> listing(Session s, CompletableFuture<List<String>> listed, String what) {
        try {
            return s.await(listed, requestTimeoutMs, what);
        } catch (KeeperException | StoreUnavailableException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Lease

    /** Renews without blocking: the answer comes a ping interval later, once the leader is proven to have heard it. */
    @Override
    public CompletableFuture<Renewals> renewEachAsync(Collection<HoldRef> holds, Duration lease) {
        checkOpen();
        return renewal.renew(pool.existing(lease), holds, lease).thenApply(renewed -> Renewals.allAnswered(holds, renewed));
    }

    /** As {@link #renewEachAsync}, waiting for the answer. */
    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        try {
            return renewEachAsync(holds, lease).join().renewed();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Release and waiting

    @Override
    public boolean release(String name, String ownerId) {
        queue.released(ownerId);
        String dir = LockNodes.dir(uri.basePath, name);
        String what = "release '" + name + "'";
        QueueNode node = queue.get(ownerId);
        if (node != null && node.dir.equals(dir)) {
            // From here on the node is known only to this call and, if the delete gets no answer, to the reaper.
            queue.forget(node);
            queue.forgetOwner(ownerId);
            Session s = node.session.connected() || !first.connected() ? node.session : first;
            try {
                ZooKeeper zk = s.zk(requestTimeoutMs);
                s.call(zk, what, z -> {
                    z.delete(node.path, -1);
                    return null;
                });
                return node.acquired;
            } catch (KeeperException.NoNodeException e) {
                return false;
            } catch (KeeperException e) {
                throw s.failure(what, e);
            } catch (RuntimeException e) { // unreachable, no answer in time, or interrupted while waiting
                reaper.delete(node.session, node.sessionId, node.path);
                throw e;
            }
        }
        // Not ours, or not known here (another client's owner, a retry after a lost reply): look it up, after a sync,
        // since this session did not create the node and its server may be a follower that has not applied the
        // create yet (the ensemble conformance once saw a release by a held lock's owner id answer "not held").
        boolean uncertain = queue.uncertain(ownerId);
        queue.forgetOwner(ownerId);
        if (node != null) {
            queue.forget(node);
        }
        try {
            ZooKeeper zk = first.zk(requestTimeoutMs);
            first.catchUp(zk, what, requestTimeoutMs);
            List<String> queued = LockNodes.queue(QueueNodes.children(first, zk, dir, what));
            String prefix = LockNodes.nodePrefix(ownerId);
            boolean freed = false;
            for (int i = 0; i < queued.size(); i++) {
                if (queued.get(i).startsWith(prefix)) {
                    String path = dir + "/" + queued.get(i);
                    try {
                        first.call(zk, what, z -> {
                            z.delete(path, -1);
                            return null;
                        });
                        freed |= i == 0;
                    } catch (KeeperException.NoNodeException e) {
                        // released meanwhile
                    }
                }
            }
            return freed;
        } catch (KeeperException e) {
            throw first.failure(what, e);
        } catch (RuntimeException e) {
            if (uncertain) {
                reaper.deleteOwner(first, dir, LockNodes.nodePrefix(ownerId)); // its create may have happened
            }
            throw e;
        }
    }

    @Override
    public AutoCloseable watchReleases(String name, String ownerId, Runnable onRelease) {
        QueueNode node = queue.get(ownerId);
        String predecessor = node == null ? null : node.predecessor;
        if (node == null || node.acquired || predecessor == null) {
            return () -> { }; // nothing to watch yet: the next attempt queues the owner, and the core watches again
        }
        Session s = node.session;
        String path = node.dir + "/" + predecessor;
        Session.Registration registration = s.new Registration(path, () -> {
            prefetch(node);
            onRelease.run();
        });
        if (s.register(registration)) {
            return registration; // a watch on that predecessor is already set and has not fired
        }
        try {
            ZooKeeper zk = s.zk(0);
            // getData, not exists: on a missing node it sets no watch, so nothing is left behind.
            s.call(zk, "watch the predecessor of a waiter on '" + name + "'", z -> z.getData(path, s.releaseWatcher, null));
        } catch (KeeperException.NoNodeException e) {
            s.fireAll(path); // already released: wake at once
        } catch (KeeperException e) {
            registration.close();
            throw s.failure("watch '" + name + "'", e);
        } catch (RuntimeException e) {
            registration.close();
            throw e;
        }
        return registration;
    }

    /**
     * Lists the node's directory at once, behind a {@code sync}, from the thread that saw the predecessor go (without
     * waiting for the replies), so the attempt the wake-up causes finds its answer already on the way, caught up with
     * the leader as a turn needs ({@link #caughtUpListing}).
     */
    private void prefetch(QueueNode node) {
        if (!queue.current(node) || closed) {
            return;
        }
        CompletableFuture<List<String>> listed;
        try {
            listed = node.session.syncedChildren(node.session.zk(0), node.dir);
        } catch (RuntimeException e) {
            return; // not connected: the attempt lists for itself
        }
        node.prefetched.set(listed);
    }

    // ---------------------------------------------------------------------------------------------
    // Operators

    @Override
    public Optional<LockInfo> inspect(String name) {
        checkOpen();
        return admin.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        checkOpen();
        return admin.list(prefix, limit);
    }

    @Override
    public boolean forceRelease(String name) {
        checkOpen();
        return admin.forceRelease(name);
    }

    // ---------------------------------------------------------------------------------------------

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the ZooKeeper lock store at " + uri.address + " is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        OPEN.remove(this);
        timers.shutdownNow();
        pool.close(); // ends the sessions, so the server deletes their remaining nodes at once
    }

    @Override
    public String toString() {
        return "ZooKeeperLockStore[" + uri + "]";
    }
}
