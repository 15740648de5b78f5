package io.holdfast.testkit;

import io.holdfast.Holdfast;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.LockStoreProvider;
import org.junit.jupiter.api.AfterEach;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.fail;

/**
 * What every conformance test stands on: where the backend's store is, how to cut a client off from it,
 * clients and resources closed after each test, and lock names unique to the run. A backend's test class
 * extends {@link LockConformanceSuite}, which runs every test of the contract.
 */
public abstract class ConformanceBase {
    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();
    private final String run = randomSuffix();

    /** How long a test waits for a lock it expects to get soon. */
    protected static final Duration SOON = Duration.ofSeconds(20);

    /** A reachable store, isolated for this test class (its own file, table, key prefix...). */
    protected abstract String uri();

    /** The same backend at an address where nothing listens. */
    protected abstract String unreachableUri();

    /**
     * A new way to cut a client off from the store of {@link #uri()}; the suite closes it after the
     * test.
     */
    protected abstract StoreOutage outage();

    /**
     * A piece of text the {@link StoreUnavailableException} for {@link #unreachableUri()} must contain
     * besides the backend name, such as the port or file path; null to check only that an address is
     * named.
     */
    protected String unreachableAddressHint() {
        return null;
    }

    /** A new client on {@link #uri()}, closed after the test. */
    protected final Holdfast client() {
        return client(uri());
    }

    /** A new client on {@code uri}, closed after the test. */
    protected final Holdfast client(String uri) {
        return closeLater(Holdfast.connect(uri));
    }

    /** Closes {@code resource} after the test, before the resources registered earlier. */
    protected final <T extends AutoCloseable> T closeLater(T resource) {
        toClose.push(resource);
        return resource;
    }

    /** A lock name unique to this test run: {@code conformance/<what>/<random>}. */
    protected final String name(String what) {
        return "conformance/" + what + "/" + run;
    }

    /** Closes what the test opened, newest first. */
    @AfterEach
    public void closeEverything() throws Exception {
        Exception first = null;
        while (!toClose.isEmpty()) {
            AutoCloseable c = toClose.pop();
            try {
                c.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** A fixed pool of daemon threads, shut down after the test. */
    protected final ExecutorService executor(int threads) {
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "conformance-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        toClose.push(() -> {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        });
        return pool;
    }

    /** A random lower-case suffix, for names and prefixes unique to a run. */
    protected static String randomSuffix() {
        return Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36).toLowerCase(Locale.ROOT)
                + UUID.randomUUID().toString().substring(0, 4);
    }

    /** Opens the backend's {@link LockStore} for {@code uri} directly, as the core does. */
    protected static LockStore openStore(String uri) {
        for (LockStoreProvider provider : ServiceLoader.load(LockStoreProvider.class)) {
            if (provider.accepts(uri)) {
                return provider.open(uri);
            }
        }
        return fail("no LockStoreProvider on the class path accepts " + uri);
    }
}
