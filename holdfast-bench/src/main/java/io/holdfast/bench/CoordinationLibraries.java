package io.holdfast.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lock.LockResponse;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.nio.charset.StandardCharsets;
import io.holdfast.bench.LockLibrary.Renewal;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The ZooKeeper and etcd incumbents, one client per {@link LockLibrary#open}: Curator's InterProcessMutex and jetcd's Lock. */
final class CoordinationLibraries {
    /** Session timeout of the Curator client and TTL of the jetcd leases, Holdfast's default lease. */
    static final int SESSION_SECONDS = 30;

    private CoordinationLibraries() {
    }

    /**
     * One {@code CuratorFramework}. {@code InterProcessMutex} is re-entrant per thread (a second thread's
     * {@code acquire} on the same instance would not wait for the first), so each thread has its own instance on the
     * same path, as an application would.
     */
    static LockLibrary curator(String connect) {
        return new Library("Curator " + Versions.of("curator") + " InterProcessMutex",
                "one `CuratorFramework` per client (session " + SESSION_SECONDS + " s); each thread has its own `InterProcessMutex` on "
                + "the lock's path (the recipe is re-entrant per thread) and calls `acquire(wait)` and `release()`",
                Renewal.OWN, lease -> { // the session, not the lease, keeps its locks
            CuratorFramework curator = connectCurator(connect);
            ThreadLocal<Map<String, InterProcessMutex>> mine = ThreadLocal.withInitial(HashMap::new);
            return new Locker() {
                @Override
                public Object acquire(String lockName, Duration wait) throws Exception {
                    InterProcessMutex mutex = mine.get().computeIfAbsent(lockName,
                            n -> new InterProcessMutex(curator, "/bench-curator/" + n));
                    return mutex.acquire(wait.toMillis(), TimeUnit.MILLISECONDS) ? mutex : null;
                }

                @Override
                public void release(Object held) throws Exception {
                    ((InterProcessMutex) held).release();
                }

                @Override
                public void close() {
                    curator.close();
                }
            };
        });
    }

    /**
     * Keeps {@code leases} (as the set is now, each time) alive every 10 s, until the returned executor is shut down.
     * {@code keepAliveOnce}: jetcd's keepAlive stream needs Vert.x 5 on netty 4.2, and this classpath is on netty 4.1
     * (Redisson's).
     */
    static ScheduledExecutorService keepAlive(Client client, Set<Long> leases) {
        ScheduledExecutorService keeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jetcd-lease-keeper");
            t.setDaemon(true);
            return t;
        });
        keeper.scheduleAtFixedRate(() -> leases.forEach(id -> client.getLeaseClient().keepAliveOnce(id)), 10, 10, TimeUnit.SECONDS);
        return keeper;
    }

    /** A jetcd client of {@code endpoints} (host:port each). */
    static Client jetcdClient(List<String> endpoints) {
        return Client.builder().endpoints(endpoints.stream().map(e -> "http://" + e).toArray(String[]::new)).build();
    }

    /** A started {@code CuratorFramework} (session {@value #SESSION_SECONDS} s), connected. */
    static CuratorFramework connectCurator(String connect) throws InterruptedException {
        CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(connect)
                .sessionTimeoutMs(SESSION_SECONDS * 1000).connectionTimeoutMs(15_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 3)).build();
        curator.start();
        if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
            curator.close();
            throw new IllegalStateException("Curator did not connect to " + connect);
        }
        return curator;
    }

    /**
     * One jetcd {@code Client}, each thread locking with a lease of its own. Not one lease shared by the threads:
     * etcd's lock service names the lock key after the lease, so two threads on one lease would both get the same
     * key and both "hold" the lock at once.
     */
    static LockLibrary jetcd(List<String> endpoints, String prefix) {
        return new Library("jetcd " + Versions.of("jetcd") + " Lock",
                "one jetcd `Client` per client; each thread grants its own " + SESSION_SECONDS + " s lease once (one lease shared by the "
                + "threads would give them all the same lock key) and calls `lock(name, lease)` (blocks in the server) and "
                + "`unlock(key)`; leases kept alive every 10 s; a wait that times out revokes that thread's lease",
                Renewal.OWN, ignored -> { // each thread's own 30 s lease, kept alive: shape 5 does not run on etcd
            Client client = jetcdClient(endpoints);
            Set<Long> leases = ConcurrentHashMap.newKeySet();
            ThreadLocal<Long> lease = new ThreadLocal<>();
            ScheduledExecutorService keeper = keepAlive(client, leases);
            return new Locker() {
                @Override
                public Object acquire(String lockName, Duration wait) throws Exception {
                    Long id = lease.get();
                    if (id == null) {
                        id = client.getLeaseClient().grant(SESSION_SECONDS).get(10, TimeUnit.SECONDS).getID();
                        leases.add(id);
                        lease.set(id);
                    }
                    try {
                        LockResponse r = client.getLockClient().lock(ByteSequence.from(prefix + "/" + lockName, StandardCharsets.UTF_8), id)
                                .get(wait.toMillis(), TimeUnit.MILLISECONDS);
                        return r.getKey();
                    } catch (TimeoutException e) {
                        // The server's lock call goes on: revoking the lease deletes the key it may still create.
                        leases.remove(id);
                        lease.remove();
                        client.getLeaseClient().revoke(id).get(10, TimeUnit.SECONDS);
                        return null;
                    }
                }

                @Override
                public void release(Object held) throws Exception {
                    client.getLockClient().unlock((ByteSequence) held).get(30, TimeUnit.SECONDS);
                }

                @Override
                public void close() {
                    keeper.shutdownNow();
                    for (long id : leases) {
                        try {
                            client.getLeaseClient().revoke(id).get(5, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            // it expires by itself
                        }
                    }
                    client.close();
                }
            };
        });
    }
}
