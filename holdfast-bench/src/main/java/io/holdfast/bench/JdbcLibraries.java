package io.holdfast.bench;

import com.zaxxer.hikari.HikariDataSource;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import io.holdfast.bench.LockLibrary.Renewal;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PostgreSQL incumbents, one instance per {@link LockLibrary#open}: Spring Integration's {@code JdbcLockRegistry}
 * and ShedLock's JdbcTemplate provider. Both on a HikariCP pool of {@link Pools#SIZE} connections, Holdfast's pool size.
 * Neither has a renewal schedule of its own: the harness renews for them in shape 5.
 */
final class JdbcLibraries {
    static final String SHEDLOCK_TABLE = "bench_shedlock";
    static final String SPRING_PREFIX = "BENCH_INT_";

    private JdbcLibraries() {
    }

    /** Creates the incumbents' tables if missing (the shipped DDL for Spring, ShedLock's README DDL). */
    static void prepareTables(String jdbcUrl) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement st = c.createStatement()) {
            st.execute(springLockTableDdl());
            st.execute("CREATE TABLE IF NOT EXISTS " + SHEDLOCK_TABLE + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, "
                    + "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
        }
    }

    /** One {@code JdbcLockRegistry} over one {@code DefaultLockRepository}, shared by every thread. */
    static LockLibrary spring(String jdbcUrl, Duration idleBetweenTries) {
        return new Library("Spring Integration " + Versions.of("spring-integration") + " JdbcLockRegistry",
                "one registry per client; each thread calls `registry.obtain(name).tryLock(wait)` and `unlock()`; the registry's "
                + "local lock per name queues the process's threads, the one in front polls the table every "
                + "`idleBetweenTries` = " + io.holdfast.Durations.format(idleBetweenTries) + " (its default is 100 ms); TTL = the lease; it has no renewal schedule, so in shape 5 the harness calls "
                + "`registry.renewLock(name)` every lease/3 on the holding thread",
                Renewal.BY_HARNESS, lease -> {
            HikariDataSource pool = Pools.newPool(jdbcUrl, "spring", Pools.SIZE);
            DefaultLockRepository repository = new DefaultLockRepository(pool);
            repository.setPrefix(SPRING_PREFIX);
            repository.setTimeToLive((int) lease.toMillis());
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
        });
    }

    /**
     * One ShedLock provider, shared by every thread. ShedLock cannot wait ({@code lock()} answers at once), so a
     * waiting acquire is {@code lock()} retried every {@code poll}.
     */
    static LockLibrary shedLock(String jdbcUrl, Duration poll) {
        return new Library("ShedLock " + Versions.of("shedlock") + " (JdbcTemplate provider)",
                "one provider per client (`usingDbTime()`, its own `lockedBy`, as a separate host would have); ShedLock cannot wait, so each thread retries `provider.lock(...)` every "
                + io.holdfast.Durations.format(poll) + " until it succeeds or its wait is over, and calls `SimpleLock.unlock()`; `lockAtMostFor` = the lease, "
                + "`lockAtLeastFor` = 0; its `KeepAliveLockProvider` refuses leases under 30 s, so in shape 5 the harness calls "
                + "`SimpleLock.extend(lease, 0)` every lease/3",
                Renewal.BY_HARNESS, lease -> {
            HikariDataSource pool = Pools.newPool(jdbcUrl, "shedlock", Pools.SIZE);
            JdbcTemplateLockProvider provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                    .withJdbcTemplate(new JdbcTemplate(pool)).withTableName(SHEDLOCK_TABLE).usingDbTime()
                    .withLockedByValue("bench-" + java.util.UUID.randomUUID()).build());
            return new Library.Parts((lockName, wait) -> Polling.retry(() -> provider.lock(
                    new LockConfiguration(ClockProvider.now(), lockName, lease, Duration.ZERO)).orElse(null), wait, poll),
                    held -> ((SimpleLock) held).unlock(), held -> ((SimpleLock) held).extend(lease, Duration.ZERO).orElse(null), pool);
        });
    }

    /** The {@code INT_LOCK} DDL shipped in the spring-integration-jdbc jar, renamed to the benchmark's table. */
    static String springLockTableDdl() {
        String script;
        try (InputStream in = DefaultLockRepository.class.getResourceAsStream("/org/springframework/integration/jdbc/schema-postgresql.sql")) {
            if (in == null) {
                throw new IllegalStateException("schema-postgresql.sql not found in spring-integration-jdbc");
            }
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher m = Pattern.compile("CREATE TABLE INT_LOCK\\s*\\(.*?\\);", Pattern.DOTALL).matcher(script);
        if (!m.find()) {
            throw new IllegalStateException("no CREATE TABLE INT_LOCK in spring-integration-jdbc's schema-postgresql.sql");
        }
        String ddl = m.group();
        String table = SPRING_PREFIX + "LOCK";
        return ddl.substring(0, ddl.length() - 1).replace("CREATE TABLE INT_LOCK", "CREATE TABLE IF NOT EXISTS " + table)
                .replace("INT_LOCK_PK", table + "_PK");
    }
}
