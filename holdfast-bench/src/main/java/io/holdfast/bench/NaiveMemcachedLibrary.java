package io.holdfast.bench;

import io.holdfast.Durations;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * Memcached's floor, the seeds' lock: {@code add} with a fixed expiry, blind
 * {@code delete}, retried every {@code poll}; one xmemcached client shared by every thread. No fencing, no renewal, no
 * ownership check on release: unsafe, shown only as the cheapest thing that can be called a Memcached lock.
 */
final class NaiveMemcachedLibrary implements LockLibrary {
    private static final int EXPIRY_SECONDS = 30;

    private final String host;
    private final int port;
    private final Duration poll;

    NaiveMemcachedLibrary(String host, int port, Duration poll) {
        this.host = host;
        this.port = port;
        this.poll = poll;
    }

    @Override
    public String name() {
        return "naive add/delete (xmemcached " + Versions.ofArtifact("com.googlecode.xmemcached", "xmemcached") + "; unsafe; the floor)";
    }

    @Override
    public String howItIsUsed() {
        return "one xmemcached client (binary protocol); each thread retries `add(key, " + EXPIRY_SECONDS + " s)` every "
                + Durations.format(poll) + " and releases with a blind `delete`";
    }

    @Override
    public Renewal renewal() {
        return Renewal.NONE;
    }

    @Override
    public Locker open(Duration lease) throws IOException {
        XMemcachedClientBuilder builder = new XMemcachedClientBuilder(List.of(new InetSocketAddress(host, port)));
        builder.setCommandFactory(new BinaryCommandFactory());
        MemcachedClient client = builder.build();
        String owner = "bench-" + UUID.randomUUID();
        return new Locker() {
            @Override
            public Object acquire(String lockName, Duration wait) throws Exception {
                String key = "naive:" + lockName;
                return Polling.retry(() -> client.add(key, EXPIRY_SECONDS, owner) ? key : null, wait, poll);
            }

            @Override
            public void release(Object held) throws Exception {
                client.delete((String) held);
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
