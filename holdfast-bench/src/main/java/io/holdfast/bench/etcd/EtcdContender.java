package io.holdfast.bench.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lock.LockResponse;
import io.holdfast.Hold;
import io.holdfast.Holdfast;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** A lock library on one etcd cluster, as the benchmark drives it: one client per simulated process. */
interface EtcdContender {

    String name();

    /** How it waits and keeps holds alive, for the report. */
    String howItWorks();

    /** What it offers against a holder that lost its lock without knowing (Kleppmann's pause). */
    String fencing();

    /** A new client: its own connection(s), as a separate process would have. */
    Client newClient() throws Exception;

    /** One process's worth of the library. */
    interface Client extends AutoCloseable {
        /** Takes {@code name}, waiting up to {@code wait}; throws if not acquired in time. */
        Held acquire(String name, Duration wait) throws Exception;

        @Override
        void close();
    }

    /** One acquired lock. */
    interface Held {
        void release() throws Exception;
    }

    /** Holdfast's etcd backend through its public API. */
    final class HoldfastEtcd implements EtcdContender {
        private final String uri;

        HoldfastEtcd(List<String> endpoints, String prefix) {
            this.uri = "etcd://" + String.join(",", endpoints) + "/" + prefix;
        }

        String uri() {
            return uri;
        }

        @Override
        public String name() {
            return "Holdfast " + EtcdBench.version("holdfast") + " (etcd)";
        }

        @Override
        public String howItWorks() {
            return "`lock.acquire(wait)`: one Txn creates the owner's key with the client's session lease (plus a keep-alive sent "
                    + "with it); a waiter watches only the key before its own and re-checks in one Txn when woken; renewal is one "
                    + "keep-alive per session plus batched reads";
        }

        @Override
        public String fencing() {
            return "token = the key's create revision; `EtcdFencing.putIfHeld` makes an etcd write conditional on that key";
        }

        @Override
        public Client newClient() {
            Holdfast holdfast = Holdfast.connect(uri);
            return new Client() {
                @Override
                public Held acquire(String name, Duration wait) throws Exception {
                    Hold hold = holdfast.lock(name).acquire(wait);
                    return hold::close;
                }

                @Override
                public void close() {
                    holdfast.close();
                }
            };
        }
    }

    /**
     * jetcd's {@code Lock} client: etcd's server-side lock API (v3lock), which runs etcd's own
     * {@code concurrency.Mutex} inside the server. Each client grants one 30 s lease and keeps it alive.
     */
    final class JetcdLock implements EtcdContender {
        private final List<String> endpoints;
        private final String prefix;

        JetcdLock(List<String> endpoints, String prefix) {
            this.endpoints = endpoints;
            this.prefix = prefix;
        }

        @Override
        public String name() {
            return "jetcd " + EtcdBench.version("jetcd") + " Lock";
        }

        @Override
        public String howItWorks() {
            return "`lockClient.lock(name, leaseId)`: one RPC that blocks in the server until the lock is free (the server "
                    + "creates a key with the lease and watches the keys before it); `unlock(key)` deletes it; one 30 s lease per client, "
                    + "kept alive every 10 s";
        }

        @Override
        public String fencing() {
            return "none offered: `lock` returns the key; a stale holder's write goes through unless the user writes "
                    + "their own Txn on that key";
        }

        @Override
        public Client newClient() throws Exception {
            io.etcd.jetcd.Client client = io.etcd.jetcd.Client.builder()
                    .endpoints(endpoints.stream().map(e -> "http://" + e).toArray(String[]::new)).build();
            long leaseId = client.getLeaseClient().grant(30).get(10, TimeUnit.SECONDS).getID();
            // Kept alive every 10 s (a third of its TTL) with keepAliveOnce. jetcd's own keepAlive stream would do the
            // same, but its timers need Vert.x 5 on netty 4.2, and this shared classpath is on netty 4.1 (Redisson's).
            ScheduledExecutorService keeper = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "jetcd-lease-keeper");
                t.setDaemon(true);
                return t;
            });
            keeper.scheduleAtFixedRate(() -> client.getLeaseClient().keepAliveOnce(leaseId), 10, 10, TimeUnit.SECONDS);
            AutoCloseable keepAlive = keeper::shutdownNow;
            return new Client() {
                @Override
                public Held acquire(String name, Duration wait) throws Exception {
                    LockResponse r = client.getLockClient()
                            .lock(ByteSequence.from(prefix + "/" + name, StandardCharsets.UTF_8), leaseId)
                            .get(wait.toMillis(), TimeUnit.MILLISECONDS);
                    ByteSequence key = r.getKey();
                    return () -> client.getLockClient().unlock(key).get(30, TimeUnit.SECONDS);
                }

                @Override
                public void close() {
                    try {
                        keepAlive.close();
                    } catch (Exception e) {
                        // nothing to stop
                    }
                    try {
                        client.getLeaseClient().revoke(leaseId).get(5, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        // it expires by itself
                    }
                    client.close();
                }
            };
        }
    }

}
