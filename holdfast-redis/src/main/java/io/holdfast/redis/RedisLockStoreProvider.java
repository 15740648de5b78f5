package io.holdfast.redis;

import io.holdfast.spi.LockStore;
import io.holdfast.spi.LockStoreProvider;

import java.util.List;

/**
 * The Redis backend: {@code redis://}, {@code rediss://}, {@code redis-sentinel://} (as Lettuce spells them),
 * {@code redis-cluster://host:port,host:port} for Redis Cluster, and {@code redlock://host:port,host:port,...}
 * for Redlock over independent masters. See the module README for parameters and guarantees.
 */
public final class RedisLockStoreProvider implements LockStoreProvider {

    @Override
    public List<String> schemes() {
        return RedisTarget.SCHEMES;
    }

    @Override
    public boolean accepts(String uri) {
        return RedisTarget.accepts(uri);
    }

    @Override
    public LockStore open(String uri) {
        RedisTarget target = RedisTarget.parse(uri);
        return target.mode == RedisTarget.Mode.REDLOCK ? RedlockStore.open(target) : RedisLockStore.open(target);
    }
}
