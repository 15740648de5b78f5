package io.holdfast.bench.shared;

import com.zaxxer.hikari.HikariDataSource;
import io.holdfast.bench.Pools;
import io.holdfast.bench.SpringIntegrationContender;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;

/**
 * The PostgreSQL incumbents, each one instance shared by every thread: Spring Integration's {@code JdbcLockRegistry}
 * and ShedLock's JdbcTemplate provider. Both on a HikariCP pool of 4 connections, the size Holdfast's rows use.
 */
final class JdbcLibraries {
    static final String SHEDLOCK_TABLE = "bench_shared_shedlock";
    /** Lease of every hold: long enough never to need renewal in a measurement. */
    static final Duration LEASE = Duration.ofSeconds(30);

    private JdbcLibraries() {
    }

    /** Creates the incumbents' tables if missing (the shipped DDL for Spring, ShedLock's README DDL). */
    static void prepareTables(String jdbcUrl) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement st = c.createStatement()) {
            st.execute(SpringIntegrationContender.lockTableDdl());
            st.execute("CREATE TABLE IF NOT EXISTS " + SHEDLOCK_TABLE + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, "
                    + "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        }
    }

    /** One {@code JdbcLockRegistry} over one {@code DefaultLockRepository}, shared by every thread. */
    static SharedLockLibrary spring(String jdbcUrl, Duration idleBetweenTries) {
        return new SharedLockLibrary() {
            @Override
            public String name() {
                return "Spring Integration " + Versions.of("spring-integration") + " JdbcLockRegistry";
            }

            @Override
            public String howItIsUsed() {
                return "one registry; each thread calls `registry.obtain(name).tryLock(wait)` and `unlock()`; the registry's "
                        + "local lock per name queues the process's threads, the one in front polls the table every "
                        + "`idleBetweenTries` = " + io.holdfast.Durations.format(idleBetweenTries) + " (its default is 100 ms)";
            }

            @Override
            public Locker open() {
                HikariDataSource pool = Pools.newPool(jdbcUrl, "shared-spring");
                DefaultLockRepository repository = new DefaultLockRepository(pool);
                repository.setPrefix(SpringIntegrationContender.PREFIX);
                repository.setTimeToLive((int) LEASE.toMillis());
                repository.setTransactionManager(new DataSourceTransactionManager(pool));
                repository.afterPropertiesSet();
                repository.afterSingletonsInstantiated();
                repository.start();
                JdbcLockRegistry registry = new JdbcLockRegistry(repository);
                registry.setIdleBetweenTries(idleBetweenTries);
                return new SpringRegistryLocker(registry, () -> {
                    try {
                        repository.close(); // deletes whatever this client still holds
                    } finally {
                        pool.close();
                    }
                });
            }
        };
    }

    /**
     * One ShedLock provider, shared by every thread. ShedLock cannot wait ({@code lock()} answers at once), so a
     * waiting acquire is {@code lock()} retried every {@code poll}.
     */
    static SharedLockLibrary shedLock(String jdbcUrl, Duration poll) {
        return new SharedLockLibrary() {
            @Override
            public String name() {
                return "ShedLock " + Versions.of("shedlock") + " (JdbcTemplate provider)";
            }

            @Override
            public String howItIsUsed() {
                return "one provider (`usingDbTime()`); ShedLock cannot wait, so each thread retries `provider.lock(...)` every "
                        + io.holdfast.Durations.format(poll) + " until it succeeds or its wait is over, and calls `SimpleLock.unlock()`";
            }

            @Override
            public Locker open() {
                HikariDataSource pool = Pools.newPool(jdbcUrl, "shared-shedlock");
                JdbcTemplateLockProvider provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                        .withJdbcTemplate(new JdbcTemplate(pool)).withTableName(SHEDLOCK_TABLE).usingDbTime().build());
                return new Locker() {
                    @Override
                    public Object acquire(String lockName, Duration wait) throws InterruptedException {
                        long deadline = System.nanoTime() + wait.toNanos();
                        while (true) {
                            Optional<SimpleLock> lock = provider.lock(new LockConfiguration(ClockProvider.now(), lockName, LEASE, Duration.ZERO));
                            if (lock.isPresent()) {
                                return lock.get();
                            }
                            if (System.nanoTime() - deadline >= 0) {
                                return null;
                            }
                            Thread.sleep(poll.toMillis());
                        }
                    }

                    @Override
                    public void release(Object held) {
                        ((SimpleLock) held).unlock();
                    }

                    @Override
                    public void close() {
                        pool.close();
                    }
                };
            }
        };
    }
}
