package io.holdfast.bench.memcached;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;

/** One lock implementation on Memcached, as {@link MemcachedBench} drives it. */
interface MemcachedContender {

    String name();

    String howItWaits();

    String howItRenews();

    /** Whether holds are kept alive past their lease (the renewal row runs only for those). */
    boolean renews();

    /** A new client with its own connection, as a separate process would have; holds last {@code lease}. */
    Client newClient(int index, Duration lease) throws Exception;

    interface Client extends AutoCloseable {
        /** One attempt; null if the lock is held. */
        Held tryAcquire(String name) throws Exception;

        /** Waits up to {@code wait}; throws if not acquired by then. */
        Held acquire(String name, Duration wait) throws Exception;

        /** Locks of the renewal row still held by this client, by the server's record. */
        int countHeld() throws Exception;

        @Override
        void close();
    }

    interface Held {
        void release() throws Exception;
    }

    /** The version in a jar's Maven metadata (kept in the shaded jar), or "?". */
    static String version(String group, String artifact) {
        try (InputStream in = MemcachedContender.class.getResourceAsStream("/META-INF/maven/" + group + "/" + artifact + "/pom.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }

    /** Holdfast's Memcached backend through the public API. */
    final class HoldfastMemcached implements MemcachedContender {
        private final String uri;
        private final Duration maxPoll;

        /** @param maxPoll the URI's {@code maxPoll}, or null for the default (100 ms) */
        HoldfastMemcached(String host, int port, Duration maxPoll) {
            this.uri = "memcached://" + host + ":" + port + "?prefix=bench:" + (maxPoll == null ? "" : "&maxPoll=" + maxPoll.toMillis() + "ms");
            this.maxPoll = maxPoll;
        }

        @Override
        public String name() {
            return "Holdfast " + version("io.holdfast", "holdfast-memcached") + (maxPoll == null ? "" : ", maxPoll=" + maxPoll.toMillis() + "ms");
        }

        @Override
        public String howItWaits() {
            return "`lock.acquire(wait)`: Memcached has no notifications; the core polls (10 ms doubling to "
                    + (maxPoll == null ? 100 : maxPoll.toMillis()) + " ms, jittered), and a release by a client wakes that client's own next waiter at once";
        }

        @Override
        public String howItRenews() {
            return "automatic, every lease/3: one pipelined round of `gets` for all due holds, one of `cas` (new expiry) for those still theirs";
        }

        @Override
        public boolean renews() {
            return true;
        }

        /** Whether this is the variant with a non-default maxPoll (the renewal row runs only for the default). */
        boolean maxPollSet() {
            return maxPoll != null;
        }

        @Override
        public Client newClient(int index, Duration lease) {
            Holdfast holdfast = Holdfast.builder(uri).holderName("bench-client-" + index).defaultLease(lease).connect();
            return new Client() {
                @Override
                public Held tryAcquire(String name) {
                    Optional<Hold> hold = holdfast.lock(name).tryAcquire();
                    return hold.<Held>map(h -> h::close).orElse(null);
                }

                @Override
                public Held acquire(String name, Duration wait) throws InterruptedException {
                    Hold hold = holdfast.lock(name).acquire(wait);
                    return hold::close;
                }

                @Override
                public int countHeld() {
                    return holdfast.admin().list("bench/many/", 1_000_000).size();
                }

                @Override
                public void close() {
                    holdfast.close();
                }
            };
        }
    }

    /**
     * The seeds' lock: {@code add} with a fixed expiry, blind {@code delete}; no fencing token, no renewal, no
     * ownership check on release. Unsafe (a holder that outlives the expiry is not told, and its delete frees
     * someone else's lock); here only as the cheapest thing that can be called a Memcached lock.
     */
    final class NaiveAddDelete implements MemcachedContender {
        private final String host;
        private final int port;
        private final Duration poll;

        NaiveAddDelete(String host, int port, Duration poll) {
            this.host = host;
            this.port = port;
            this.poll = poll;
        }

        @Override
        public String name() {
            return "naive add/delete (xmemcached " + version("com.googlecode.xmemcached", "xmemcached") + "; unsafe, the floor)";
        }

        @Override
        public String howItWaits() {
            return "the harness retries `add` every " + poll.toMillis() + " ms";
        }

        @Override
        public String howItRenews() {
            return "none: the key expires after its fixed time even while the holder works";
        }

        @Override
        public boolean renews() {
            return false;
        }

        @Override
        public Client newClient(int index, Duration lease) throws IOException {
            XMemcachedClientBuilder builder = new XMemcachedClientBuilder(List.of(new InetSocketAddress(host, port)));
            builder.setCommandFactory(new BinaryCommandFactory());
            MemcachedClient client = builder.build();
            String owner = "bench-" + index + "-" + UUID.randomUUID();
            int expiry = (int) Math.max(1, lease.toSeconds());
            return new Client() {
                @Override
                public Held tryAcquire(String name) throws Exception {
                    String key = "naive:" + name;
                    return client.add(key, expiry, owner) ? () -> client.delete(key) : null;
                }

                @Override
                public Held acquire(String name, Duration wait) throws Exception {
                    long deadline = System.nanoTime() + wait.toNanos();
                    while (true) {
                        Held held = tryAcquire(name);
                        if (held != null) {
                            return held;
                        }
                        if (System.nanoTime() - deadline >= 0) {
                            throw new IllegalStateException("not acquired within " + wait);
                        }
                        Thread.sleep(poll.toMillis());
                    }
                }

                @Override
                public int countHeld() {
                    throw new UnsupportedOperationException("the naive lock does not renew");
                }

                @Override
                public void close() {
                    try {
                        client.shutdown();
                    } catch (IOException e) {
                        // closing a benchmark client
                    }
                }
            };
        }
    }
}
