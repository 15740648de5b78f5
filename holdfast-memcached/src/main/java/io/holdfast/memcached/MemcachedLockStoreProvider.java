package io.holdfast.memcached;

import io.holdfast.spi.LockStore;
import io.holdfast.spi.LockStoreProvider;

import java.util.List;

/**
 * The Memcached backend: {@code memcached://HOST[:PORT][,HOST[:PORT]...]} with Holdfast's parameters
 * {@code prefix} (key prefix, default {@code holdfast:}), {@code timeout} (per operation, default 1s) and
 * {@code connectTimeout} (default 2s) and {@code maxPoll} (longest pause between a waiter's polls, default 100ms).
 * Best effort on one server per lock; see the module README.
 */
public final class MemcachedLockStoreProvider implements LockStoreProvider {

    @Override
    public List<String> schemes() {
        return List.of(MemcachedUri.SCHEME);
    }

    @Override
    public boolean accepts(String uri) {
        return MemcachedUri.accepts(uri);
    }

    @Override
    public LockStore open(String uri) {
        return MemcachedLockStore.open(MemcachedUri.parse(uri));
    }
}
