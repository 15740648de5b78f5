package io.holdfast.bench.redis;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/** One Redis lock library as the Redis benchmark drives it. Every client is its own library instance, as a process would have. */
interface RedisContender {

    /** Library, lock type and version, for the tables. */
    String name();

    /** How a waiting acquire works in this library, for the report. */
    String howItWaits();

    /** How held locks are kept alive, for the report. */
    String howItRenews();

    /**
     * A new client (own connections and threads) whose holds last {@code lease}; {@code renewing} asks for the
     * library's renewal where it is optional (Spring's renewal scheduler; Holdfast and Redisson always renew).
     */
    Client newClient(Duration lease, boolean renewing) throws Exception;

    interface Client extends AutoCloseable {
        /** One attempt; null if the lock is held elsewhere. */
        Held tryAcquire(String name) throws Exception;

        /** Waits up to {@code wait}; null if not acquired in time. */
        Held acquire(String name, Duration wait) throws Exception;

        @Override
        void close();
    }

    interface Held {
        void release() throws Exception;
    }

    // ---------------------------------------------------------------------------------------------

    /** Holdfast on the Redis backend. */
    final class HoldfastRedis implements RedisContender {
        private final String uri;

        HoldfastRedis(String host, int port) {
            this.uri = "redis://" + host + ":" + port + "?prefix=bench-holdfast:";
        }

        @Override
        public String name() {
            return "Holdfast " + RedisBench.version("holdfast") + " (Redis backend)";
        }

        @Override
        public String howItWaits() {
            return "a release publishes to the first queued client's shard channel only and reserves the lock for it briefly; "
                    + "that client's head waiter makes one attempt; bounded polls (max 2 s) as a safety net";
        }

        @Override
        public String howItRenews() {
            return "one renew script call per 500 holds of one lease length, every lease/3 (one client-wide renewer)";
        }

        @Override
        public Client newClient(Duration lease, boolean renewing) {
            Holdfast holdfast = Holdfast.builder(uri).defaultLease(lease).connect();
            return new Client() {
                @Override
                public Held tryAcquire(String name) {
                    Optional<Hold> hold = holdfast.lock(name).tryAcquire();
                    return hold.<Held>map(h -> h::close).orElse(null);
                }

                @Override
                public Held acquire(String name, Duration wait) throws InterruptedException {
                    Optional<Hold> hold = holdfast.lock(name).tryAcquire(wait);
                    return hold.<Held>map(h -> h::close).orElse(null);
                }

                @Override
                public void close() {
                    holdfast.close();
                }
            };
        }
    }

    /** Redisson's RLock (or RFencedLock) with the watchdog, as Redisson documents it. */
    final class RedissonLocks implements RedisContender {
        private final String address;
        private final boolean fenced;

        RedissonLocks(String host, int port, boolean fenced) {
            this.address = "redis://" + host + ":" + port;
            this.fenced = fenced;
        }

        @Override
        public String name() {
            return "Redisson " + RedisBench.version("redisson") + (fenced ? " RFencedLock" : " RLock");
        }

        @Override
        public String howItWaits() {
            return "subscribes to the lock's channel; every release publishes there and every waiting client retries";
        }

        @Override
        public String howItRenews() {
            return "watchdog: renews held locks every lockWatchdogTimeout/3, in batches (lockWatchdogBatchSize, default 100)";
        }

        @Override
        public Client newClient(Duration lease, boolean renewing) {
            Config config = new Config();
            config.useSingleServer().setAddress(address).setConnectionMinimumIdleSize(1).setConnectionPoolSize(4)
                    .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(2);
            config.setLockWatchdogTimeout(lease.toMillis());
            config.setThreads(2);
            config.setNettyThreads(4);
            RedissonClient redisson = Redisson.create(config);
            return new Client() {
                private RLock lock(String name) {
                    String key = "bench-redisson:" + (fenced ? "fenced:" : "") + name;
                    return fenced ? redisson.getFencedLock(key) : redisson.getLock(key);
                }

                @Override
                public Held tryAcquire(String name) {
                    RLock lock = lock(name);
                    if (fenced) {
                        Long token = ((RFencedLock) lock).tryLockAndGetToken();
                        return token == null ? null : lock::unlock;
                    }
                    return lock.tryLock() ? lock::unlock : null;
                }

                @Override
                public Held acquire(String name, Duration wait) throws InterruptedException {
                    RLock lock = lock(name);
                    if (fenced) {
                        Long token = ((RFencedLock) lock).tryLockAndGetToken(wait.toMillis(), TimeUnit.MILLISECONDS);
                        return token == null ? null : lock::unlock;
                    }
                    return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
                }

                @Override
                public void close() {
                    redisson.shutdown(0, 2, TimeUnit.SECONDS);
                }
            };
        }
    }

    /** Spring Integration's RedisLockRegistry in its pub/sub mode, renewing through a task scheduler. */
    final class SpringRedisLockRegistry implements RedisContender {
        private final String host;
        private final int port;

        SpringRedisLockRegistry(String host, int port) {
            this.host = host;
            this.port = port;
        }

        @Override
        public String name() {
            return "Spring Integration " + RedisBench.version("spring-integration") + " RedisLockRegistry (PUB_SUB_LOCK)";
        }

        @Override
        public String howItWaits() {
            return "PUB_SUB_LOCK: subscribes to the registry's unlock channel; every unlock publishes there and every waiting "
                    + "client retries";
        }

        @Override
        public String howItRenews() {
            return "renewal row only: one renewal task per held lock on the renewal TaskScheduler, every expireAfter/3, one call per "
                    + "lock (other rows: none, their 30 s leases need none)";
        }

        @Override
        public Client newClient(Duration lease, boolean renewing) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
            factory.afterPropertiesSet();
            factory.start();
            ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
            scheduler.setPoolSize(1);
            scheduler.setDaemon(true);
            scheduler.initialize();
            RedisLockRegistry registry = new RedisLockRegistry(factory, "bench-spring", lease.toMillis());
            registry.setRedisLockType(RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
            if (renewing) {
                // Only in the renewal row: with a renewal scheduler, unlock() after tryLock(wait) fails in 6.4.2 with an
                // NPE on its renewal future; the other rows' 30 s leases never need renewal.
                registry.setRenewalTaskScheduler(scheduler);
            }
            List<AutoCloseable> closers = new ArrayList<>();
            closers.add(registry::destroy);
            closers.add(scheduler::shutdown);
            closers.add(factory::destroy);
            return new Client() {
                @Override
                public Held tryAcquire(String name) {
                    Lock lock = registry.obtain(name);
                    return lock.tryLock() ? lock::unlock : null;
                }

                @Override
                public Held acquire(String name, Duration wait) throws InterruptedException {
                    Lock lock = registry.obtain(name);
                    return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
                }

                @Override
                public void close() {
                    for (AutoCloseable c : closers) {
                        try {
                            c.close();
                        } catch (Exception e) {
                            // closing a benchmark client: nothing to do
                        }
                    }
                }
            };
        }
    }
}
