package io.holdfast.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.holdfast.Durations;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Each store's floor: the least that can be called a lock there, not a library. No renewal, no fencing, no queue,
 * no expiry check on release beyond what is said; waiting is one attempt every poll interval ({@link Polling}). They
 * show what a lock costs at the minimum on that store.
 */
final class Floors {
    static final String SQL_TABLE = "bench_floor_locks";

    private Floors() {
    }

    // --------------------------------------------------------------------------------------------- SQL

    /** Creates the SQL floors' table (one row per held lock) if missing; the same DDL on PostgreSQL and SQLite. */
    static void prepareSqlTable(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS " + SQL_TABLE + " (name VARCHAR(200) PRIMARY KEY)");
        }
    }

    /**
     * PostgreSQL's or SQLite's floor: {@code INSERT ... ON CONFLICT DO NOTHING} of the lock's row (one row inserted:
     * taken) and {@code DELETE} of it, each one auto-committed statement, on a HikariCP pool of {@code poolSize}.
     *
     * @param initSql run on every new connection (SQLite's busy timeout), or null
     */
    static LockLibrary sql(String jdbcUrl, int poolSize, String initSql, Duration poll) {
        return new Library("floor: INSERT ON CONFLICT DO NOTHING + DELETE",
                "one row per held lock in `" + SQL_TABLE + "` (name primary key); take: `INSERT INTO " + SQL_TABLE
                        + " (name) VALUES (?) ON CONFLICT DO NOTHING` (one row inserted: taken), retried every " + Durations.format(poll)
                        + "; release: `DELETE ... WHERE name = ?`; auto-commit, a pool of " + poolSize + (poolSize == 1 ? " connection" : " connections")
                        + "; no lease, no fencing",
                LockLibrary.Renewal.NONE, lease -> {
                    HikariDataSource pool = Pools.newPool(jdbcUrl, "floor", poolSize, initSql);
                    return new Library.Parts((name, wait) -> Polling.retry(() -> update(pool, "INSERT INTO " + SQL_TABLE
                            + " (name) VALUES (?) ON CONFLICT DO NOTHING", name) == 1 ? name : null, wait, poll),
                            held -> update(pool, "DELETE FROM " + SQL_TABLE + " WHERE name = ?", (String) held), null, pool);
                });
    }

    private static int update(HikariDataSource pool, String sql, String name) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, name);
            return ps.executeUpdate();
        }
    }

    // --------------------------------------------------------------------------------------------- Redis

    private static final String COMPARE_AND_DELETE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    /** Redis's floor: {@code SET key token NX PX 30000}, and a Lua compare-and-delete ({@code EVALSHA}) to release. */
    static LockLibrary redis(String host, int port, Duration poll) {
        return new Library("floor: SET NX PX + Lua compare-and-delete (Lettuce " + Versions.ofArtifact("io.lettuce", "lettuce-core") + ")",
                "one Lettuce connection per client, shared by its threads; take: `SET key token NX PX 30000`, retried every "
                        + Durations.format(poll) + "; release: `EVALSHA` of `if GET key == token then DEL key`; no renewal, no fencing, no queue",
                LockLibrary.Renewal.NONE, lease -> {
                    RedisClient lettuce = RedisClient.create(RedisURI.create(host, port));
                    StatefulRedisConnection<String, String> connection = lettuce.connect();
                    RedisCommands<String, String> redis = connection.sync();
                    String sha = redis.scriptLoad(COMPARE_AND_DELETE);
                    SetArgs args = SetArgs.Builder.nx().px(Runner.LEASE.toMillis());
                    return new Library.Parts((name, wait) -> {
                        String key = "bench-floor:" + name;
                        String token = UUID.randomUUID().toString();
                        return Polling.retry(() -> "OK".equals(redis.set(key, token, args)) ? List.of(key, token) : null, wait, poll);
                    }, held -> {
                        List<?> h = (List<?>) held;
                        redis.evalsha(sha, ScriptOutputType.INTEGER, new String[] {(String) h.get(0)}, (String) h.get(1));
                    }, null, () -> {
                        connection.close();
                        lettuce.shutdown(0, 2, TimeUnit.SECONDS);
                    });
                });
    }

    // --------------------------------------------------------------------------------------------- ZooKeeper

    /** ZooKeeper's floor: {@code create} of an ephemeral node (taken unless it exists) and {@code delete} of it. */
    static LockLibrary zookeeper(String connect, Duration poll) {
        return new Library("floor: create(EPHEMERAL) + delete (ZooKeeper " + org.apache.zookeeper.Version.getFullVersion().split("[-,]")[0] + " client)",
                "one ZooKeeper session per client (30 s), shared by its threads; take: `create(/bench-floor/name, EPHEMERAL)`, retried every "
                        + Durations.format(poll) + " while the node exists; release: `delete(path, -1)`; no queue, no watch, no fencing",
                LockLibrary.Renewal.NONE, lease -> {
                    CountDownLatch connected = new CountDownLatch(1);
                    ZooKeeper zk = new ZooKeeper(connect, (int) Runner.LEASE.toMillis(), e -> {
                        if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                            connected.countDown();
                        }
                    });
                    if (!connected.await(30, TimeUnit.SECONDS)) {
                        zk.close();
                        throw new IllegalStateException("no ZooKeeper session with " + connect + " within 30 s");
                    }
                    try {
                        zk.create("/bench-floor", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    } catch (KeeperException.NodeExistsException e) {
                        // made by an earlier client
                    }
                    return new Library.Parts((name, wait) -> Polling.retry(() -> {
                        try {
                            return zk.create("/bench-floor/" + name, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                        } catch (KeeperException.NodeExistsException e) {
                            return null;
                        }
                    }, wait, poll), held -> zk.delete((String) held, -1), null, zk::close);
                });
    }

    // --------------------------------------------------------------------------------------------- etcd

    /**
     * etcd's floor: a put of the lock's key if absent (one Txn comparing its create revision with 0, the put's
     * cost: one Raft proposal) and a delete of it.
     */
    static LockLibrary etcd(List<String> endpoints, String prefix, Duration poll) {
        return new Library("floor: put-if-absent (Txn) + delete (jetcd " + Versions.of("jetcd") + ")",
                "one jetcd `Client` per client, shared by its threads; take: one Txn `if create_revision(key) == 0 then put(key)`, "
                        + "retried every " + Durations.format(poll) + "; release: `delete(key)`; no lease, no watch, no fencing",
                LockLibrary.Renewal.NONE, lease -> {
                    Client client = CoordinationLibraries.jetcdClient(endpoints);
                    return new Library.Parts((name, wait) -> {
                        ByteSequence key = ByteSequence.from(prefix + "/" + name, StandardCharsets.UTF_8);
                        return Polling.retry(() -> client.getKVClient().txn().If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                                .Then(Op.put(key, key, PutOption.DEFAULT)).commit().get(30, TimeUnit.SECONDS).isSucceeded() ? key : null, wait, poll);
                    }, held -> client.getKVClient().delete((ByteSequence) held).get(30, TimeUnit.SECONDS), null, client::close);
                });
    }

    // --------------------------------------------------------------------------------------------- Memcached

    /**
     * Memcached's floor, the seeds' lock: {@code add} with a fixed expiry, blind {@code delete}. No fencing, no
     * renewal, no ownership check on release: unsafe (a holder that outlives the expiry is not told, and its delete
     * frees whoever holds the lock then), shown only as the cheapest thing that can be called a Memcached lock.
     */
    static LockLibrary memcached(String host, int port, Duration poll) {
        int expirySeconds = (int) Runner.LEASE.toSeconds();
        return new Library("floor: naive add/delete (xmemcached " + Versions.ofArtifact("com.googlecode.xmemcached", "xmemcached") + "; unsafe)",
                "one xmemcached client per client (binary protocol), shared by its threads; take: `add(key, " + expirySeconds
                        + " s)`, retried every " + Durations.format(poll) + "; release: a blind `delete(key)`; no renewal, no fencing, no owner check",
                LockLibrary.Renewal.NONE, lease -> {
                    XMemcachedClientBuilder builder = new XMemcachedClientBuilder(List.of(new InetSocketAddress(host, port)));
                    builder.setCommandFactory(new BinaryCommandFactory());
                    MemcachedClient client = builder.build();
                    String owner = "bench-" + UUID.randomUUID();
                    return new Library.Parts((name, wait) -> {
                        String key = "naive:" + name;
                        return Polling.retry(() -> client.add(key, expirySeconds, owner) ? key : null, wait, poll);
                    }, held -> client.delete((String) held), null, client::shutdown);
                });
    }
}
