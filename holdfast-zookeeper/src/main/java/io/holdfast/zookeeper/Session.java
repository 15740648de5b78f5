package io.holdfast.zookeeper;

import io.holdfast.Durations;
import io.holdfast.HoldfastException;
import io.holdfast.StoreUnavailableException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * One ZooKeeper session with a given timeout. Curator's framework keeps it connected: it moves between
 * the ensemble's servers, and replaces an expired session with a new one. Nothing else of Curator is
 * used: the store issues plain ZooKeeper requests on {@link #zk()}, asynchronously, with its own
 * timeouts, and never retries a create behind the caller's back (Curator's retry loop would, and a
 * retried create after a lost reply is how a second node leaks).
 *
 * <p>It also dispatches release watches: one {@link Watcher} per session, registered on every
 * predecessor a waiter of this session watches, fans a node's deletion out to the waiters registered
 * for that path. ZooKeeper keeps one watch per path and watcher, so re-watching the same predecessor
 * after each refused attempt costs nothing more.
 */
final class Session implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Session.class);
    private static final AtomicInteger SESSIONS = new AtomicInteger();
    /** Error codes that mean "no answer from the ensemble", reported as {@link StoreUnavailableException}. */
    static final Set<KeeperException.Code> UNAVAILABLE = Set.of(KeeperException.Code.CONNECTIONLOSS,
            KeeperException.Code.SESSIONEXPIRED, KeeperException.Code.SESSIONMOVED, KeeperException.Code.OPERATIONTIMEOUT,
            KeeperException.Code.REQUESTTIMEOUT, KeeperException.Code.NEWCONFIGNOQUORUM, KeeperException.Code.RECONFIGINPROGRESS,
            KeeperException.Code.THROTTLEDOP);

    final ZooKeeperUri uri;
    final long requestedTimeoutMs;
    private final CuratorFramework curator;
    private final ConcurrentHashMap<String, Set<Registration>> watched = new ConcurrentHashMap<>();
    private final LongAdder wakeUps;
    private final LongAdder watchEvents;
    /** The one watcher of this session's release watches. */
    final Watcher releaseWatcher = this::dispatch;
    /** What the ensemble's leader is known to have heard from this session. */
    final LeaderProof proof;

    private Session(ZooKeeperUri uri, long timeoutMs, LongAdder wakeUps, LongAdder watchEvents) {
        this.uri = uri;
        this.requestedTimeoutMs = timeoutMs;
        this.wakeUps = wakeUps;
        this.watchEvents = watchEvents;
        // A ping interval of the leader is tickTime/2; the slack covers a follower busy with other packets.
        // Never more than a quarter of the lease, so a renewal still fits well within its third of the lease.
        this.proof = new LeaderProof(Math.min(TimeUnit.MILLISECONDS.toNanos(timeoutMs) / 4, uri.tickTime.toNanos() * 6 / 10));
        int id = SESSIONS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        ThreadFactory daemons = r -> {
            Thread t = new Thread(r, "holdfast-zk-" + id + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(uri.connectString)
                .sessionTimeoutMs((int) Math.min(Integer.MAX_VALUE, timeoutMs))
                .connectionTimeoutMs((int) uri.connectTimeout.toMillis())
                // No retries: every call is one attempt, and the store decides what a lost reply means.
                .retryPolicy(new RetryNTimes(0, 0))
                // Keep the servers the URI names (a tracker would swap a proxy address for the real one).
                .ensembleTracker(false)
                .zkClientConfig(clientConfig(uri))
                .threadFactory(daemons);
        if (uri.digest != null) {
            builder.authorization("digest", uri.digest.getBytes(StandardCharsets.UTF_8));
        }
        this.curator = builder.build();
    }

    /** A synchronous request gets no reply within the connect timeout: it fails (and the client reconnects). */
    private static ZKClientConfig clientConfig(ZooKeeperUri uri) {
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty(ZKClientConfig.ZOOKEEPER_REQUEST_TIMEOUT, Long.toString(uri.connectTimeout.toMillis()));
        return config;
    }

    /** A synchronous ZooKeeper request. */
    interface Request<T> {
        T send(ZooKeeper zk) throws KeeperException, InterruptedException;
    }

    /**
     * Sends a synchronous request (answered on the client's I/O thread, without the hop to its event
     * thread that an asynchronous callback takes).
     *
     * @throws KeeperException for answers the caller handles (no node, node exists, ...)
     * @throws StoreUnavailableException when the connection broke or the server did not answer in time
     */
    <T> T call(ZooKeeper zk, String what, Request<T> request) throws KeeperException {
        try {
            return request.send(zk);
        } catch (KeeperException e) {
            if (UNAVAILABLE.contains(e.code())) {
                throw unavailable(what + " failed: " + e.code(), e);
            }
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HoldfastException("interrupted while waiting for ZooKeeper to " + what, e);
        }
    }

    /**
     * Opens a session and waits until it is connected.
     *
     * @throws StoreUnavailableException if no server answers within the URI's connect timeout
     */
    static Session open(ZooKeeperUri uri, long timeoutMs, LongAdder wakeUps, LongAdder watchEvents) {
        Session s = new Session(uri, timeoutMs, wakeUps, watchEvents);
        boolean connected;
        try {
            s.curator.start();
            connected = s.curator.blockUntilConnected((int) uri.connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            s.close();
            throw new HoldfastException("interrupted while connecting to ZooKeeper at " + uri.address, e);
        } catch (RuntimeException e) {
            s.close();
            throw new StoreUnavailableException(ZooKeeperLockStore.BACKEND, uri.address, "cannot connect: " + e.getMessage(), e);
        }
        if (!connected) {
            s.close();
            throw new StoreUnavailableException(ZooKeeperLockStore.BACKEND, uri.address,
                    "no server answered within the connect timeout of " + Durations.format(uri.connectTimeout), null);
        }
        return s;
    }

    /** Whether the session is connected to a server right now. */
    boolean connected() {
        return curator.getZookeeperClient().isConnected();
    }

    /**
     * The current ZooKeeper handle, connected: waits up to {@code waitMs} for a connection.
     *
     * @throws StoreUnavailableException if not connected in time
     */
    ZooKeeper zk(long waitMs) {
        try {
            if (!connected() && (waitMs <= 0 || !curator.blockUntilConnected((int) waitMs, TimeUnit.MILLISECONDS))) {
                throw unavailable("not connected to any server", null);
            }
            return curator.getZookeeperClient().getZooKeeper();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HoldfastException("interrupted while waiting for a ZooKeeper connection to " + uri.address, e);
        } catch (StoreUnavailableException e) {
            throw e;
        } catch (Exception e) {
            throw unavailable("not connected: " + e.getMessage(), e);
        }
    }

    /** The current session id, or 0 while there is none. */
    long sessionId() {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    /** The session timeout the servers granted (0 before the first connection). */
    int negotiatedTimeoutMs() {
        return curator.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
    }

    /** The session's password, for tests that close the session from another handle. */
    byte[] password() throws Exception {
        return curator.getZookeeperClient().getZooKeeper().getSessionPasswd();
    }

    /** The current handle without waiting, for tests. */
    ZooKeeper handleForTests() throws Exception {
        return curator.getZookeeperClient().getZooKeeper();
    }

    /**
     * Waits for an asynchronous request.
     *
     * @throws KeeperException for answers the caller handles (no node, node exists, ...)
     * @throws StoreUnavailableException when the server did not answer in time or the connection broke
     */
    <T> T await(CompletableFuture<T> reply, long timeoutMs, String what) throws KeeperException {
        try {
            return reply.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HoldfastException("interrupted while waiting for ZooKeeper to " + what, e);
        } catch (TimeoutException e) {
            throw unavailable("no answer within " + timeoutMs + " ms to " + what, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof KeeperException ke) {
                if (UNAVAILABLE.contains(ke.code())) {
                    throw unavailable(what + " failed: " + ke.code(), ke);
                }
                throw ke;
            }
            throw new HoldfastException("ZooKeeper request to " + what + " failed", cause);
        }
    }

    /** An error answer to {@code what}, as the exception the caller throws (naming a credentials problem as such). */
    HoldfastException failure(String what, KeeperException e) {
        if (e.code() == KeeperException.Code.NOAUTH || e.code() == KeeperException.Code.AUTHFAILED
                || e.code() == KeeperException.Code.INVALIDACL) {
            return new HoldfastException("ZooKeeper at " + uri.address + " refused to " + what + " (" + e.code() + " on " + e.getPath()
                    + "): the lock nodes' ACL does not admit " + (uri.user == null ? "clients without credentials" : "user '" + uri.user + "'")
                    + "; every client of a lock must use the same digest credentials", e);
        }
        return new HoldfastException("ZooKeeper at " + uri.address + " failed to " + what + ": " + e.getMessage(), e);
    }

    StoreUnavailableException unavailable(String detail, Throwable cause) {
        return new StoreUnavailableException(ZooKeeperLockStore.BACKEND, uri.address,
                detail + " (session timeout " + requestedTimeoutMs + " ms)", cause);
    }

    /**
     * Sends a {@code sync}: answered only once the server the session is connected to has caught up with
     * the leader, so it fails on a follower cut off from its leader.
     */
    CompletableFuture<Void> sync(ZooKeeper zk) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        zk.sync("/", (rc, path, ctx) -> complete(done, rc, path, null), null);
        return done;
    }

    /**
     * A {@code sync}, waited for: the server this session talks to (perhaps a follower) has then applied every write
     * the leader committed before the call, so a read that follows sees what any client did before it.
     */
    void catchUp(ZooKeeper zk, String what, long timeoutMs) throws KeeperException {
        await(sync(zk), timeoutMs, what + " (sync)");
    }

    /**
     * The children of {@code dir} (empty if it does not exist), listed after a {@code sync} sent just before it. Both
     * are sent at once, one round trip: a server answers a session's requests in order and holds its reads behind its
     * pending {@code sync}, so the listing sees everything the leader had committed when the {@code sync} reached it.
     * Fails if either fails.
     */
    CompletableFuture<List<String>> syncedChildren(ZooKeeper zk, String dir) {
        CompletableFuture<Void> synced = sync(zk);
        CompletableFuture<List<String>> listed = new CompletableFuture<>();
        zk.getChildren(dir, false, (AsyncCallback.ChildrenCallback) (rc, path, ctx, kids) -> {
            if (rc == KeeperException.Code.NONODE.intValue()) {
                listed.complete(List.of());
            } else {
                complete(listed, rc, path, kids);
            }
        }, null);
        return synced.thenCombine(listed, (ok, kids) -> kids);
    }

    /** Completes {@code reply} from a ZooKeeper result code. */
    static <T> void complete(CompletableFuture<T> reply, int rc, String path, T value) {
        if (rc == KeeperException.Code.OK.intValue()) {
            reply.complete(value);
        } else {
            reply.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), path));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Release watches

    /** One waiter's interest in the deletion of one predecessor node; runs its callback at most once. */
    final class Registration implements AutoCloseable {
        final String path;
        private final Runnable onRelease;
        private final AtomicBoolean done = new AtomicBoolean();

        Registration(String path, Runnable onRelease) {
            this.path = path;
            this.onRelease = onRelease;
        }

        void fire() {
            if (done.compareAndSet(false, true)) {
                forget(this, false);
                wakeUps.increment();
                try {
                    onRelease.run();
                } catch (RuntimeException e) {
                    log.warn("a release callback for {} threw", path, e);
                }
            }
        }

        /** Gives up the interest; the last registration for the path also removes the server-side watch. */
        @Override
        public void close() {
            if (done.compareAndSet(false, true)) {
                forget(this, true);
            }
        }
    }

    /**
     * Adds a registration for {@code path}.
     *
     * @return whether a watch on that path is already armed (an earlier registration waits for it), so no
     *         new watch needs to be set
     */
    boolean register(Registration r) {
        boolean[] armed = {false};
        watched.compute(r.path, (p, set) -> {
            if (set == null) {
                set = ConcurrentHashMap.newKeySet();
            } else {
                armed[0] = !set.isEmpty();
            }
            set.add(r);
            return set;
        });
        return armed[0];
    }

    /**
     * Drops a registration. If it was the last for its path and {@code unwatch}, the server-side watch is
     * removed too (a waiter that gave up would otherwise leave it on the server until that node goes):
     * sent while the path's entry is locked, so before the watch a later registration for it sets.
     */
    private void forget(Registration r, boolean unwatch) {
        watched.computeIfPresent(r.path, (p, set) -> {
            set.remove(r);
            if (!set.isEmpty()) {
                return set;
            }
            if (unwatch) {
                try {
                    // All data watches of the path: only release watches are set on queue nodes. (Removing one
                    // watcher object would only check the server's watch and drop it here, not there.)
                    curator.getZookeeperClient().getZooKeeper().removeAllWatches(p, Watcher.WatcherType.Data, true,
                            (rc, path, ctx) -> { }, null);
                } catch (Exception e) {
                    log.debug("could not remove the watch on {}; it goes when that node does", p, e);
                }
            }
            return null;
        });
    }

    /** Whether a registration waits for {@code path}: its watch is set and has not fired. */
    boolean armed(String path) {
        Set<Registration> regs = watched.get(path);
        return regs != null && !regs.isEmpty();
    }

    /** Fires every registration waiting for {@code path}. */
    void fireAll(String path) {
        Set<Registration> regs = watched.remove(path);
        if (regs != null) {
            for (Registration r : regs) {
                r.fire();
            }
        }
    }

    private void dispatch(WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            if (event.getState() == Watcher.Event.KeeperState.Expired || event.getState() == Watcher.Event.KeeperState.Closed) {
                // The session's watches are gone with it: let every waiter attempt again (and re-queue).
                List<String> paths = new ArrayList<>(watched.keySet());
                for (String p : paths) {
                    fireAll(p);
                }
            }
            return;
        }
        if (event.getType() == Watcher.Event.EventType.DataWatchRemoved || event.getType() == Watcher.Event.EventType.ChildWatchRemoved) {
            return; // a watch this session removed itself (its waiter gave up): nothing happened to the node
        }
        if (event.getPath() != null) {
            watchEvents.increment();
            fireAll(event.getPath());
        }
    }

    @Override
    public void close() {
        try {
            curator.close();
        } catch (RuntimeException e) {
            log.debug("closing the ZooKeeper session to {} failed", uri.address, e);
        }
    }
}
