package io.holdfast.testkit;

import io.holdfast.LockInfo;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.Renewals;
import io.holdfast.spi.StoreTraits;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store that counts the core's calls of a real store (build a client on it with {@code Holdfast.builder(store)}),
 * so that a test can relate them to what the server counted: requests per store call, whatever else runs in the
 * same JVM. Every call goes to the wrapped store unchanged; {@link #close()} closes it.
 */
public final class CountingStore implements LockStore {
    private final AtomicInteger attempts = new AtomicInteger();
    private final AtomicInteger releases = new AtomicInteger();
    private final AtomicInteger watchRegistrations = new AtomicInteger();
    private final AtomicInteger renewals = new AtomicInteger();
    private final LockStore store;

    /** Counts the calls of {@code store}. */
    public CountingStore(LockStore store) {
        this.store = store;
    }

    /** {@code tryAcquire} calls so far. */
    public int attempts() {
        return attempts.get();
    }

    /** {@code release} calls so far (the core's releases and give-backs, and {@code tryAcquire()}'s dequeues). */
    public int releases() {
        return releases.get();
    }

    /** {@code watchReleases} calls so far. */
    public int watchRegistrations() {
        return watchRegistrations.get();
    }

    /** {@code renew} and {@code renewEach} calls so far. */
    public int renewals() {
        return renewals.get();
    }

    @Override
    public String backend() {
        return store.backend();
    }

    @Override
    public String address() {
        return store.address();
    }

    @Override
    public StoreTraits traits() {
        return store.traits();
    }

    @Override
    public Attempt tryAcquire(String name, String ownerId, String holder, Duration lease) {
        attempts.incrementAndGet();
        return store.tryAcquire(name, ownerId, holder, lease);
    }

    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        renewals.incrementAndGet();
        return store.renew(holds, lease);
    }

    @Override
    public Renewals renewEach(Collection<HoldRef> holds, Duration lease) {
        renewals.incrementAndGet();
        return store.renewEach(holds, lease);
    }

    @Override
    public boolean release(String name, String ownerId) {
        releases.incrementAndGet();
        return store.release(name, ownerId);
    }

    @Override
    public AutoCloseable watchReleases(String name, String ownerId, Runnable onRelease) {
        watchRegistrations.incrementAndGet();
        return store.watchReleases(name, ownerId, onRelease);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return store.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        return store.list(prefix, limit);
    }

    @Override
    public boolean forceRelease(String name) {
        return store.forceRelease(name);
    }

    @Override
    public void close() {
        store.close();
    }
}
