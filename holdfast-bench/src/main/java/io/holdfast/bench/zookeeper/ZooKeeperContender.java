package io.holdfast.bench.zookeeper;

import io.holdfast.DistributedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/** One lock library on one ZooKeeper ensemble, as the benchmark drives it. */
interface ZooKeeperContender {
    /** Session timeout of every client: Holdfast's default lease, which is its session timeout. */
    int SESSION_MS = 30_000;

    String name();

    /** How a waiting acquire works, for the report. */
    String howItWaits();

    /** A new client: its own ZooKeeper session, as a separate process would have. */
    Client newClient() throws Exception;

    interface Client extends AutoCloseable {
        /**
         * Takes the lock {@code name}, waiting up to {@code wait}.
         *
         * @throws IllegalStateException if not acquired in time
         */
        Held acquire(String name, Duration wait) throws Exception;

        @Override
        void close();
    }

    interface Held {
        void release() throws Exception;
    }

    /** Holdfast's ZooKeeper backend: ephemeral-sequential queue, predecessor watch, czxid token, lease = session. */
    final class HoldfastZooKeeper implements ZooKeeperContender {
        private final String connect;

        HoldfastZooKeeper(String connect) {
            this.connect = connect;
        }

        @Override
        public String name() {
            return "Holdfast " + ZooKeeperBench.version("holdfast");
        }

        @Override
        public String howItWaits() {
            return "queue node stays; wakes on its predecessor's deletion (getData watch), listing the directory at once; "
                    + "backstop polls (from 10 ms, doubling, at most 3 s) answered locally while the watch is set, for up to 1 s";
        }

        @Override
        public Client newClient() {
            Holdfast holdfast = Holdfast.connect("zookeeper://" + connect + "/bench-holdfast");
            Map<String, DistributedLock> locks = new HashMap<>();
            return new Client() {
                @Override
                public Held acquire(String name, Duration wait) throws Exception {
                    Hold hold = locks.computeIfAbsent(name, holdfast::lock).acquire(wait);
                    return hold::close;
                }

                @Override
                public void close() {
                    holdfast.close();
                }
            };
        }
    }

    /** Curator's recipes on their own CuratorFramework per client (Curator's usual set-up). */
    final class CuratorLocks implements ZooKeeperContender {
        private final String connect;
        private final String label;
        private final String root;
        private final BiFunction<CuratorFramework, String, InterProcessLock> recipe;

        private CuratorLocks(String connect, String label, String root, BiFunction<CuratorFramework, String, InterProcessLock> recipe) {
            this.connect = connect;
            this.label = label;
            this.root = root;
            this.recipe = recipe;
        }

        static CuratorLocks mutex(String connect) {
            return new CuratorLocks(connect, "InterProcessMutex", "/bench-curator-mutex/", InterProcessMutex::new);
        }

        static CuratorLocks semaphoreMutex(String connect) {
            return new CuratorLocks(connect, "InterProcessSemaphoreMutex", "/bench-curator-semaphore/", InterProcessSemaphoreMutex::new);
        }

        @Override
        public String name() {
            return "Curator " + ZooKeeperBench.version("curator") + " " + label;
        }

        @Override
        public String howItWaits() {
            return label.equals("InterProcessMutex")
                    ? "protected ephemeral-sequential node; wait()/notify on a getData watch of its predecessor"
                    : "a lease node of InterProcessSemaphoreV2 (1 permit), guarded by an internal InterProcessMutex; waits on a children watch";
        }

        @Override
        public Client newClient() throws Exception {
            CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(connect).sessionTimeoutMs(SESSION_MS)
                    .connectionTimeoutMs(15_000).retryPolicy(new ExponentialBackoffRetry(100, 3)).build();
            curator.start();
            if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
                curator.close();
                throw new IllegalStateException("Curator did not connect to " + connect);
            }
            Map<String, InterProcessLock> locks = new HashMap<>();
            return new Client() {
                @Override
                public Held acquire(String name, Duration wait) throws Exception {
                    InterProcessLock lock = locks.computeIfAbsent(name, n -> recipe.apply(curator, root + n));
                    if (!lock.acquire(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                        throw new IllegalStateException(label + " did not acquire " + name + " within " + wait);
                    }
                    return lock::release;
                }

                @Override
                public void close() {
                    curator.close();
                }
            };
        }
    }
}
