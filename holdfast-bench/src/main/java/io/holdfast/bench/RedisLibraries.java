package io.holdfast.bench;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

import io.holdfast.bench.LockLibrary.Renewal;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** The Redis incumbents, one client per {@link LockLibrary#open}: Redisson's RLock and Spring's RedisLockRegistry. */
final class RedisLibraries {
    private RedisLibraries() {
    }

    /** One {@code RedissonClient}; an {@code RLock} is owned by a thread, so each thread is its own owner. */
    static LockLibrary redisson(String host, int port) {
        return new Library("Redisson " + Versions.of("redisson") + " RLock",
                "one `RedissonClient` per client (4 command connections, 2 for pub/sub); each thread calls "
                + "`redisson.getLock(name).tryLock(wait)` and `unlock()`; waiters subscribe to the lock's channel; the watchdog "
                + "(`lockWatchdogTimeout` = the lease) renews held locks every lease/3",
                Renewal.OWN, lease -> {
            RedissonClient redisson = redissonClient(host, port, lease);
            return new Locker() {
                @Override
                public Object acquire(String lockName, Duration wait) throws InterruptedException {
                    RLock lock = redisson.getLock("bench-redisson:" + lockName);
                    return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock : null;
                }

                @Override
                public void release(Object held) {
                    ((RLock) held).unlock();
                }

                @Override
                public void close() {
                    redisson.shutdown(0, 2, TimeUnit.SECONDS);
                }
            };
        });
    }

    /** A {@code RedissonClient} as every Redisson adapter opens it: 4 command connections, 2 for pub/sub, the watchdog renewing every lease/3. */
    static RedissonClient redissonClient(String host, int port, Duration lease) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + host + ":" + port).setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(4).setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(2);
        config.setLockWatchdogTimeout(lease.toMillis());
        config.setThreads(2);
        config.setNettyThreads(4);
        return Redisson.create(config);
    }

    /** One {@code RedisLockRegistry} in its pub/sub mode, on one Lettuce connection factory. */
    static LockLibrary spring(String host, int port) {
        return new Library("Spring Integration " + Versions.of("spring-integration") + " RedisLockRegistry (PUB_SUB_LOCK)",
                "one registry per client; each thread calls `registry.obtain(name).tryLock(wait)` and `unlock()`; the registry's "
                + "local lock per name queues the process's threads, the one in front waits on the unlock channel; `expireAfter` = the "
                + "lease; no renewal schedule is set (its renewal scheduler breaks `unlock()` after `tryLock(wait)` in 6.4.2), so in "
                + "shape 5 the harness calls `registry.renewLock(name)` every lease/3 on the holding thread",
                Renewal.BY_HARNESS, lease -> {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
            factory.afterPropertiesSet();
            factory.start();
            RedisLockRegistry registry = new RedisLockRegistry(factory, "bench-spring", lease.toMillis());
            registry.setRedisLockType(RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
            return new SpringRegistryLocker(registry, () -> {
                try {
                    registry.destroy();
                } finally {
                    factory.destroy();
                }
            });
        });
    }
}
