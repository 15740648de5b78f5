package io.holdfast.zookeeper;

import io.holdfast.Durations;
import io.holdfast.HoldfastException;
import io.holdfast.LockInfo;
import io.holdfast.LockNames;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.StoreTraits;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Locks as queues of ephemeral-sequential nodes (see {@link LockNodes} for the layout).
 *
 * <ul>
 *   <li><b>Acquire</b>: create {@code DIR/~OWNER~} (ephemeral, sequential) and list {@code DIR}, both
 *       sent at once, so ZooKeeper answers them in one round trip; the lock is held if the node is the
 *       lowest. Otherwise the node stays queued ({@link StoreTraits#queuesWaiters()}), and the owner's
 *       next attempt only lists {@code DIR} again. A create whose reply was lost is never blindly
 *       repeated: the next attempt looks for a child carrying the owner id and adopts it. A node that
 *       belongs to an earlier session of this client, or that vanished, is replaced by a new one.</li>
 *   <li><b>Fencing token</b>: the node's {@code czxid}, the zxid of the transaction that created it:
 *       global to the ensemble and strictly increasing, also across the deletion and re-creation of the
 *       lock's directory (where the sequence suffix starts again from zero).</li>
 *   <li><b>Lease</b>: a hold lives in a session whose timeout is the lease (one session per lease
 *       length in use; a lease longer than the servers grant a session is refused). A renewal checks,
 *       in one multi-read per batch, that the session is connected and each node still exists in
 *       it; disconnected, it fails, so the client's local deadline (shorter than the session timeout)
 *       takes the hold before the server can expire the session. A hold whose lease is not renewed is
 *       deleted by this client shortly after the lease runs out.</li>
 *   <li><b>Waiting</b>: a waiter watches only its predecessor's node; its deletion wakes that one
 *       waiter.</li>
 *   <li><b>Parents</b>: lock directories are container nodes, which the server deletes once empty.</li>
 * </ul>
 */
final class ZooKeeperLockStore implements LockStore {
    static final String BACKEND = "zookeeper";
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockStore.class);
    /** Stores open in this JVM, for tests of this package (session expiry, wake-up counts). */
    static final Set<ZooKeeperLockStore> OPEN = ConcurrentHashMap.newKeySet();
    /** The first session's timeout: the core's default lease, so a default client needs one session. */
    private static final long FIRST_SESSION_MS = 30_000;
    private static final int LIST_MAX_DIRECTORIES = 10_000;
    private static final int MULTI_BATCH = 500;
    private static final int RACE_RETRIES = 5;
    private static final long LOCAL_ANSWER_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long EXPIRY_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    final ZooKeeperUri uri;
    private final List<ACL> acl;
    private final StoreTraits traits;
    private final long requestTimeoutMs;
    private final Object sessionLock = new Object();
    /** Sessions by requested timeout in ms, which is the lease of the holds they carry. */
    private final ConcurrentHashMap<Long, Session> sessions = new ConcurrentHashMap<>();
    /** Leases refused because the ensemble granted a shorter session: lease ms to granted ms. */
    private final ConcurrentHashMap<Long, Integer> refused = new ConcurrentHashMap<>();
    private final Session first;
    /** The queue node of each owner this store created and has not released. */
    private final ConcurrentHashMap<String, Node> nodes = new ConcurrentHashMap<>();
    /** Owners whose create may have succeeded without this store seeing the reply. */
    private final Set<String> uncertain = ConcurrentHashMap.newKeySet();
    // Guarded by creating: creates in flight per owner, and owners released while one was in flight.
    private final Map<String, Integer> creating = new HashMap<>();
    private final Set<String> releasedWhileCreating = new HashSet<>();
    private final ScheduledThreadPoolExecutor timers;
    /** Release callbacks run (watch events, or a predecessor found gone when watched). */
    final LongAdder wakeUps = new LongAdder();
    /** Watch events received for watched predecessors, whether or not their waiter still waited. */
    final LongAdder watchEvents = new LongAdder();
    private volatile boolean closed;

    /** An owner's queue node. */
    static final class Node {
        final String owner;
        final String name;
        final String dir;
        final String child;
        final String path;
        final long sequence;
        final long czxid;
        final long sessionId;
        final Session session;
        final long leaseMs;
        volatile String predecessor;
        volatile boolean acquired;
        /** When the directory was last listed for this node (System.nanoTime()). */
        volatile long listedAtNanos;
        /** A listing requested when the predecessor went away, for the attempt that wake-up causes. */
        final java.util.concurrent.atomic.AtomicReference<CompletableFuture<List<String>>> prefetched =
                new java.util.concurrent.atomic.AtomicReference<>();
        // Guarded by this.
        ScheduledFuture<?> expiry;

        Node(String owner, String name, String dir, String child, long czxid, long sessionId, Session session, long leaseMs) {
            this.owner = owner;
            this.name = name;
            this.dir = dir;
            this.child = child;
            this.path = dir + "/" + child;
            this.sequence = LockNodes.sequence(child);
            this.czxid = czxid;
            this.sessionId = sessionId;
            this.session = session;
            this.leaseMs = leaseMs;
        }
    }

    ZooKeeperLockStore(ZooKeeperUri uri) {
        this.uri = uri;
        this.acl = uri.digest == null ? ZooDefs.Ids.OPEN_ACL_UNSAFE : ZooDefs.Ids.CREATOR_ALL_ACL;
        this.requestTimeoutMs = uri.connectTimeout.toMillis();
        this.traits = new StoreTraits("linearizable: the ensemble's leader orders every create and delete by quorum; "
                + "a hold lives in a ZooKeeper session whose timeout is its lease", true, Duration.ofSeconds(1), Duration.ofSeconds(3), true);
        this.first = Session.open(uri, FIRST_SESSION_MS, wakeUps, watchEvents);
        sessions.put(FIRST_SESSION_MS, first);
        this.timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "holdfast-zk-leases");
            t.setDaemon(true);
            return t;
        });
        this.timers.setRemoveOnCancelPolicy(true);
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

    // ---------------------------------------------------------------------------------------------
    // Sessions

    /**
     * The session for holds of {@code lease}, opened on first use.
     *
     * @throws IllegalArgumentException if the servers grant no session as long as the lease
     */
    Session sessionFor(Duration lease) {
        long ms = lease.toMillis();
        Integer granted = refused.get(ms);
        if (granted != null) {
            throw leaseTooLong(lease, granted);
        }
        Session s = sessions.get(ms);
        if (s == null) {
            synchronized (sessionLock) {
                s = sessions.get(ms);
                if (s == null) {
                    checkOpen();
                    s = Session.open(uri, ms, wakeUps, watchEvents);
                    int negotiated = s.negotiatedTimeoutMs();
                    if (negotiated < ms) {
                        s.close();
                        refused.put(ms, negotiated);
                        throw leaseTooLong(lease, negotiated);
                    }
                    sessions.put(ms, s);
                }
            }
        }
        int negotiated = s.negotiatedTimeoutMs();
        if (negotiated > 0 && negotiated < ms) {
            throw leaseTooLong(lease, negotiated); // the ensemble's limit changed since the session was opened
        }
        return s;
    }

    private IllegalArgumentException leaseTooLong(Duration lease, int grantedMs) {
        return new IllegalArgumentException("lease " + Durations.format(lease) + " is longer than the ZooKeeper session the ensemble at "
                + uri.address + " grants (" + Durations.format(Duration.ofMillis(grantedMs)) + "; servers cap sessions at their "
                + "maxSessionTimeout, 20 ticks unless set). A ZooKeeper hold lives only as long as its session, so allowed: a lease of "
                + Durations.format(traits.minLease()) + " to " + Durations.format(Duration.ofMillis(grantedMs))
                + ", or raise maxSessionTimeout on the servers");
    }

    /** The sessions of this store, for tests. */
    Collection<Session> sessions() {
        return sessions.values();
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
        Node node = nodes.get(ownerId);
        if (node != null && (node.sessionId != sid || !node.dir.equals(dir))) {
            // Queued in an earlier session: that node dies with it (or is already gone). Queue again.
            forget(node);
            deleteQuietly(s, zk, node.path);
            node = null;
        }
        List<String> children = null;
        try {
            if (node != null) {
                String watched = node.predecessor == null ? null : node.dir + "/" + node.predecessor;
                CompletableFuture<List<String>> prefetched = node.prefetched.getAndSet(null);
                if (prefetched != null) {
                    children = listing(s, prefetched, what); // fetched the moment the predecessor went away
                } else if (!node.acquired && watched != null && s.armed(watched) && started - node.listedAtNanos < LOCAL_ANSWER_NANOS) {
                    // The predecessor's watch is set and has not fired: still queued behind it. Within a
                    // second of the last listing the answer needs no request; a lost event costs a poll then.
                    return Attempt.busy(null);
                }
                if (children == null) {
                    children = children(s, zk, dir, what);
                }
                node.listedAtNanos = started;
                if (!children.contains(node.child)) {
                    forget(node); // deleted: force-released, or its lease timer fired; queue again
                    node = null;
                }
            }
            if (node == null && uncertain.contains(ownerId)) {
                if (children == null) {
                    children = children(s, zk, dir, what);
                }
                node = adopt(s, zk, sid, name, dir, ownerId, lease.toMillis(), children);
            }
            if (node == null) {
                Created created = createAndList(s, zk, name, dir, ownerId, holder, lease.toMillis());
                node = created.node;
                children = created.children;
                node.listedAtNanos = started;
            }
        } catch (KeeperException e) {
            throw failure(what, e);
        }
        return evaluate(node, children, started);
    }

    /** Whether {@code node} is the lowest of {@code children}: held, else queued behind its predecessor. */
    private Attempt evaluate(Node node, List<String> children, long startedNanos) {
        String predecessor = null;
        boolean present = false;
        for (String c : LockNodes.queue(children)) {
            long seq = LockNodes.sequence(c);
            if (seq < node.sequence) {
                predecessor = c;
            } else {
                present |= c.equals(node.child);
                break;
            }
        }
        if (!present) {
            node.predecessor = null; // vanished between create and list; the next attempt queues again
            return Attempt.busy(null);
        }
        if (predecessor == null) {
            node.predecessor = null;
            node.acquired = true;
            armExpiry(node, startedNanos);
            return Attempt.acquired(node.czxid);
        }
        node.predecessor = predecessor;
        return Attempt.busy(null);
    }

    private record Created(Node node, List<String> children) {
    }

    /**
     * Creates the owner's queue node and lists the directory, pipelined: ZooKeeper answers a session's
     * requests in order, so the listing includes the new node, and both cost one round trip.
     */
    private Created createAndList(Session s, ZooKeeper zk, String name, String dir, String owner, String holder, long leaseMs)
            throws KeeperException {
        String prefix = dir + "/" + LockNodes.nodePrefix(owner);
        byte[] data = LockNodes.data(holder, leaseMs, s.negotiatedTimeoutMs());
        String what = "acquire '" + name + "'";
        for (int attempt = 0; ; attempt++) {
            CompletableFuture<Stat> created = new CompletableFuture<>();
            CompletableFuture<List<String>> listed = new CompletableFuture<>();
            String[] createdPath = new String[1];
            beginCreate(owner);
            try {
                zk.create(prefix, data, acl, CreateMode.EPHEMERAL_SEQUENTIAL, (AsyncCallback.Create2Callback) (rc, path, ctx, actual, stat) -> {
                    createdPath[0] = actual;
                    endCreate(s, owner, rc, actual);
                    Session.complete(created, rc, path, stat);
                }, null);
            } catch (RuntimeException e) {
                endCreate(s, owner, KeeperException.Code.CONNECTIONLOSS.intValue(), null);
                throw e;
            }
            zk.getChildren(dir, false, (AsyncCallback.ChildrenCallback) (rc, path, ctx, kids) -> Session.complete(listed, rc, path, kids), null);
            // The replies, and so their callbacks, come in order: once the listing is in, so is the create.
            // Waiting for the listing first wakes this thread once.
            List<String> children;
            try {
                children = s.await(listed, requestTimeoutMs, what);
            } catch (KeeperException e) {
                children = null; // no directory: the create failed alike, and says so below
            } catch (StoreUnavailableException e) {
                uncertain.add(owner); // the create may have happened: look for it before creating again
                throw e;
            }
            Stat stat;
            try {
                stat = s.await(created, requestTimeoutMs, what);
            } catch (KeeperException.NoNodeException e) {
                if (attempt >= RACE_RETRIES) {
                    throw e;
                }
                mkdirs(s, zk, dir, what); // a new name, or a directory the server removed once it was empty
                continue;
            } catch (StoreUnavailableException e) {
                uncertain.add(owner);
                throw e;
            }
            String child = createdPath[0].substring(dir.length() + 1);
            Node node = new Node(owner, name, dir, child, stat.getCzxid(), stat.getEphemeralOwner(), s, leaseMs);
            nodes.put(owner, node);
            uncertain.remove(owner);
            return new Created(node, children == null ? List.of() : children);
        }
    }

    /** Finds and takes over the owner's node left by a create whose reply was lost. */
    private Node adopt(Session s, ZooKeeper zk, long sid, String name, String dir, String owner, long leaseMs, List<String> children)
            throws KeeperException {
        String prefix = LockNodes.nodePrefix(owner);
        List<String> mine = new ArrayList<>();
        for (String c : LockNodes.queue(children)) {
            if (c.startsWith(prefix)) {
                mine.add(c);
            }
        }
        if (mine.isEmpty()) {
            return null;
        }
        for (String extra : mine.subList(1, mine.size())) {
            deleteQuietly(s, zk, dir + "/" + extra);
        }
        String child = mine.get(0);
        Stat stat = s.call(zk, "find the queue node of '" + name + "'", z -> z.exists(dir + "/" + child, false));
        if (stat == null) {
            return null;
        }
        if (stat.getEphemeralOwner() != sid) {
            deleteQuietly(s, zk, dir + "/" + child); // from an earlier session of ours: it dies anyway
            return null;
        }
        Node node = new Node(owner, name, dir, child, stat.getCzxid(), sid, s, leaseMs);
        nodes.put(owner, node);
        uncertain.remove(owner);
        return node;
    }

    private void beginCreate(String owner) {
        synchronized (creating) {
            creating.merge(owner, 1, Integer::sum);
        }
    }

    /** A create answered (or failed); deletes its node if the owner was released meanwhile. */
    private void endCreate(Session s, String owner, int rc, String path) {
        boolean released;
        synchronized (creating) {
            Integer left = creating.merge(owner, -1, Integer::sum);
            if (left == null || left <= 0) {
                creating.remove(owner);
                released = releasedWhileCreating.remove(owner);
            } else {
                released = releasedWhileCreating.contains(owner);
            }
        }
        if (released && rc == KeeperException.Code.OK.intValue() && path != null) {
            try {
                deleteQuietly(s, s.zk(0), path);
            } catch (RuntimeException e) {
                log.debug("could not delete {} created after its owner was released; it ends with its session", path, e);
            }
        }
    }

    /** Creates the missing directories of {@code dir}, as container nodes. */
    private void mkdirs(Session s, ZooKeeper zk, String dir, String what) throws KeeperException {
        Deque<String> missing = new ArrayDeque<>();
        missing.push(dir);
        while (!missing.isEmpty()) {
            String path = missing.peek();
            try {
                s.call(zk, what, z -> z.create(path, new byte[0], acl, CreateMode.CONTAINER));
                missing.pop();
            } catch (KeeperException.NodeExistsException e) {
                missing.pop();
            } catch (KeeperException.NoNodeException e) {
                int slash = path.lastIndexOf('/');
                if (slash <= 0 || missing.size() > 64) {
                    throw e;
                }
                missing.push(path.substring(0, slash));
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

    private List<String> children(Session s, ZooKeeper zk, String dir, String what) throws KeeperException {
        try {
            return s.call(zk, what, z -> z.getChildren(dir, false));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Lease

    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        checkOpen();
        long started = System.nanoTime();
        Session s = sessions.get(lease.toMillis());
        if (s == null) {
            return Set.of();
        }
        if (!s.connected()) {
            throw s.unavailable("disconnected from the ensemble; the holds stay valid only until their local deadlines", null);
        }
        ZooKeeper zk = s.zk(0);
        long sid = zk.getSessionId();
        List<Node> check = new ArrayList<>(holds.size());
        for (HoldRef h : holds) {
            Node node = nodes.get(h.ownerId());
            if (node != null && node.acquired && node.session == s && node.sessionId == sid && node.czxid == h.fencingToken()) {
                check.add(node);
            }
        }
        Set<String> renewed = new HashSet<>();
        long timeout = Math.max(100, Math.min(requestTimeoutMs, lease.toMillis() / 4));
        for (int from = 0; from < check.size(); from += MULTI_BATCH) {
            List<Node> batch = check.subList(from, Math.min(check.size(), from + MULTI_BATCH));
            List<Op> reads = new ArrayList<>(batch.size());
            for (Node n : batch) {
                reads.add(Op.getData(n.path));
            }
            CompletableFuture<List<OpResult>> answered = new CompletableFuture<>();
            // A read-only multi answers every read: a missing node is an ErrorResult in its place (and rc
            // names the first such error); only a failure of the whole request comes without results.
            zk.multi(reads, (AsyncCallback.MultiCallback) (rc, path, ctx, results) -> {
                if (results != null && results.size() == reads.size()) {
                    answered.complete(results);
                } else {
                    Session.complete(answered, rc == KeeperException.Code.OK.intValue() ? KeeperException.Code.SYSTEMERROR.intValue() : rc, path, null);
                }
            }, null);
            List<OpResult> results;
            try {
                results = s.await(answered, timeout, "renew " + batch.size() + " hold(s)");
            } catch (KeeperException e) {
                throw failure("renew " + batch.size() + " hold(s)", e);
            }
            for (int i = 0; i < batch.size(); i++) {
                Node n = batch.get(i);
                if (results.get(i) instanceof OpResult.GetDataResult r && r.getStat().getEphemeralOwner() == sid
                        && r.getStat().getCzxid() == n.czxid) {
                    renewed.add(n.owner);
                    armExpiry(n, started);
                }
            }
        }
        return renewed;
    }

    /**
     * Deletes the node when its lease has run out unless a renewal comes first: so a hold whose lease is
     * not renewed frees the lock like on every other store, even while its session lives on. The delete
     * comes a grace after the lease (a tenth of it, at least 250 ms): the hold turned invalid locally a
     * margin before the lease ended, and the grace keeps that head start even when this machine's
     * threads run late.
     */
    private void armExpiry(Node node, long fromNanos) {
        long lease = TimeUnit.MILLISECONDS.toNanos(node.leaseMs);
        long delay = fromNanos + lease + Math.max(EXPIRY_GRACE_NANOS, lease / 10) - System.nanoTime();
        synchronized (node) {
            if (node.expiry != null) {
                node.expiry.cancel(false);
            }
            try {
                node.expiry = timers.schedule(() -> expire(node), Math.max(0, delay), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                node.expiry = null; // closing
            }
        }
    }

    private void expire(Node node) {
        if (nodes.get(node.owner) != node || closed) {
            return;
        }
        log.debug("lease of {} ran out without renewal; deleting its node", node.path);
        try {
            ZooKeeper zk = node.session.zk(0);
            node.session.call(zk, "delete the expired " + node.path, z -> {
                z.delete(node.path, -1);
                return null;
            });
        } catch (KeeperException.NoNodeException e) {
            // already gone
        } catch (StoreUnavailableException e) {
            // Disconnected: try again shortly; if the session ends first, the server deletes the node.
            synchronized (node) {
                if (nodes.get(node.owner) == node && !closed) {
                    try {
                        node.expiry = timers.schedule(() -> expire(node), 1, TimeUnit.SECONDS);
                    } catch (RejectedExecutionException closing) {
                        node.expiry = null;
                    }
                }
            }
        } catch (KeeperException | RuntimeException e) {
            log.warn("could not delete {} after its lease ran out; it ends with its session", node.path, e);
        }
    }

    private void forget(Node node) {
        nodes.remove(node.owner, node);
        synchronized (node) {
            if (node.expiry != null) {
                node.expiry.cancel(false);
                node.expiry = null;
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Release and waiting

    @Override
    public boolean release(String name, String ownerId) {
        synchronized (creating) {
            if (creating.containsKey(ownerId)) {
                releasedWhileCreating.add(ownerId);
            }
        }
        String dir = LockNodes.dir(uri.basePath, name);
        String what = "release '" + name + "'";
        Node node = nodes.get(ownerId);
        try {
            if (node != null && node.dir.equals(dir)) {
                Session s = node.session.connected() || !first.connected() ? node.session : first;
                ZooKeeper zk = s.zk(requestTimeoutMs);
                try {
                    s.call(zk, what, z -> {
                        z.delete(node.path, -1);
                        return null;
                    });
                } catch (KeeperException.NoNodeException e) {
                    forget(node);
                    uncertain.remove(ownerId);
                    return false;
                }
                forget(node);
                uncertain.remove(ownerId);
                return node.acquired;
            }
            // Not ours, or not known here (another client's owner, a retry after a lost reply): look it up.
            ZooKeeper zk = first.zk(requestTimeoutMs);
            List<String> queue = LockNodes.queue(children(first, zk, dir, what));
            String prefix = LockNodes.nodePrefix(ownerId);
            boolean freed = false;
            for (int i = 0; i < queue.size(); i++) {
                if (queue.get(i).startsWith(prefix)) {
                    String path = dir + "/" + queue.get(i);
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
            if (node != null) {
                forget(node);
            }
            uncertain.remove(ownerId);
            return freed;
        } catch (KeeperException e) {
            throw failure(what, e);
        }
    }

    @Override
    public AutoCloseable watchReleases(String name, String ownerId, Runnable onRelease) {
        Node node = nodes.get(ownerId);
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
            throw failure("watch '" + name + "'", e);
        } catch (RuntimeException e) {
            registration.close();
            throw e;
        }
        return registration;
    }

    /**
     * Lists the node's directory at once, from the thread that saw the predecessor go (without waiting
     * for the reply), so the attempt the wake-up causes finds its answer already on the way.
     */
    private void prefetch(Node node) {
        if (nodes.get(node.owner) != node || closed) {
            return;
        }
        CompletableFuture<List<String>> listed = new CompletableFuture<>();
        try {
            node.session.zk(0).getChildren(node.dir, false,
                    (AsyncCallback.ChildrenCallback) (rc, path, ctx, kids) -> Session.complete(listed, rc, path, kids), null);
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
        String dir = LockNodes.dir(uri.basePath, name);
        String what = "inspect '" + name + "'";
        try {
            ZooKeeper zk = first.zk(requestTimeoutMs);
            for (int i = 0; i < RACE_RETRIES; i++) {
                List<String> children;
                try {
                    children = first.call(zk, what, z -> z.getChildren(dir, false));
                } catch (KeeperException.NoNodeException e) {
                    return Optional.empty();
                }
                Optional<LockInfo> info = holderOf(zk, name, dir, children, what);
                if (info != null) {
                    return info;
                }
            }
            return Optional.of(new LockInfo(name, false, null, null, 0, null)); // changing hands too fast to catch
        } catch (KeeperException e) {
            throw failure(what, e);
        }
    }

    /** The lock's state from its directory's children; null if the holder vanished while being read. */
    private Optional<LockInfo> holderOf(ZooKeeper zk, String name, String dir, List<String> children, String what) throws KeeperException {
        List<String> queue = LockNodes.queue(children);
        if (queue.isEmpty()) {
            return Optional.of(new LockInfo(name, false, null, null, 0, null));
        }
        String head = queue.get(0);
        Stat stat = new Stat();
        byte[] data;
        try {
            data = first.call(zk, what, z -> z.getData(dir + "/" + head, false, stat));
        } catch (KeeperException.NoNodeException e) {
            return null;
        }
        long outlives = LockNodes.longField(data, "session", LockNodes.longField(data, "lease", 0));
        return Optional.of(new LockInfo(name, true, LockNodes.field(data, "holder"), LockNodes.owner(head), stat.getCzxid(),
                outlives > 0 ? Duration.ofMillis(outlives) : null));
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        checkOpen();
        int slash = prefix.lastIndexOf('/');
        String dirName = slash < 0 ? "" : prefix.substring(0, slash);
        String partial = prefix.substring(slash + 1);
        if (!dirName.isEmpty()) {
            try {
                LockNames.requireValid(dirName);
            } catch (IllegalArgumentException e) {
                return List.of(); // no lock name starts with it
            }
        }
        if (!partial.isEmpty()) {
            try {
                LockNames.requireValid(partial);
            } catch (IllegalArgumentException e) {
                return List.of();
            }
        }
        String what = "list locks under '" + prefix + "'";
        String start = dirName.isEmpty() ? uri.basePath : LockNodes.dir(uri.basePath, dirName);
        List<LockInfo> held = new ArrayList<>();
        try {
            ZooKeeper zk = first.zk(requestTimeoutMs);
            Deque<String> toVisit = new ArrayDeque<>();
            for (String sub : LockNodes.subdirectories(children(first, zk, start, what))) {
                if (sub.replace("%2E", ".").startsWith(partial)) {
                    toVisit.push(start + "/" + sub);
                }
            }
            int visited = 0;
            while (!toVisit.isEmpty()) {
                if (++visited > LIST_MAX_DIRECTORIES) {
                    throw new HoldfastException("listing locks under '" + prefix + "' visits more than " + LIST_MAX_DIRECTORIES
                            + " ZooKeeper directories; use a longer prefix");
                }
                String dir = toVisit.pop();
                List<String> children = children(first, zk, dir, what);
                String name = LockNodes.name(uri.basePath, dir);
                Optional<LockInfo> info = null;
                for (int i = 0; i < RACE_RETRIES && info == null; i++) {
                    info = holderOf(zk, name, dir, children, what);
                    if (info == null) {
                        children = children(first, zk, dir, what);
                    }
                }
                if (info != null && info.isPresent() && info.get().held()) {
                    held.add(info.get());
                }
                for (String sub : LockNodes.subdirectories(children)) {
                    toVisit.push(dir + "/" + sub);
                }
            }
        } catch (KeeperException e) {
            throw failure(what, e);
        }
        held.sort(Comparator.comparing(LockInfo::name));
        return held.size() > limit ? List.copyOf(held.subList(0, limit)) : held;
    }

    @Override
    public boolean forceRelease(String name) {
        checkOpen();
        String dir = LockNodes.dir(uri.basePath, name);
        String what = "force-release '" + name + "'";
        try {
            ZooKeeper zk = first.zk(requestTimeoutMs);
            for (int i = 0; i < RACE_RETRIES; i++) {
                List<String> queue = LockNodes.queue(children(first, zk, dir, what));
                if (queue.isEmpty()) {
                    return false;
                }
                String head = dir + "/" + queue.get(0);
                try {
                    first.call(zk, what, z -> {
                        z.delete(head, -1);
                        return null;
                    });
                    return true;
                } catch (KeeperException.NoNodeException e) {
                    // released meanwhile; the next in line may hold it now
                }
            }
            return false;
        } catch (KeeperException e) {
            throw failure(what, e);
        }
    }

    // ---------------------------------------------------------------------------------------------

    private void deleteQuietly(Session s, ZooKeeper zk, String path) {
        log.debug("deleting {}", path);
        try {
            zk.delete(path, -1, (AsyncCallback.VoidCallback) (rc, p, ctx) -> {
                if (rc != KeeperException.Code.OK.intValue() && rc != KeeperException.Code.NONODE.intValue()) {
                    log.debug("deleting {} failed: {}; it ends with its session", p, KeeperException.Code.get(rc));
                }
            }, null);
        } catch (RuntimeException e) {
            log.debug("deleting {} failed; it ends with its session", path, e);
        }
    }

    private HoldfastException failure(String what, KeeperException e) {
        if (e.code() == KeeperException.Code.NOAUTH || e.code() == KeeperException.Code.AUTHFAILED
                || e.code() == KeeperException.Code.INVALIDACL) {
            return new HoldfastException("ZooKeeper at " + uri.address + " refused to " + what + " (" + e.code() + " on " + e.getPath()
                    + "): the lock nodes' ACL does not admit " + (uri.user == null ? "clients without credentials" : "user '" + uri.user + "'")
                    + "; every client of a lock must use the same digest credentials", e);
        }
        return new HoldfastException("ZooKeeper at " + uri.address + " failed to " + what + ": " + e.getMessage(), e);
    }

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
        for (Session s : sessions.values()) {
            s.close(); // ends the sessions, so the server deletes their remaining nodes at once
        }
    }

    @Override
    public String toString() {
        return "ZooKeeperLockStore[" + uri + "]";
    }
}
