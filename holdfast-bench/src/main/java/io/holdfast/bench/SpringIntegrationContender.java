package io.holdfast.bench;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Spring Integration's {@code JdbcLockRegistry} over a {@code DefaultLockRepository}, wired by hand as
 * a Spring context would. Each client is its own registry and repository (its own client id), as
 * separate processes would be; its lock TTL is the lease.
 */
public final class SpringIntegrationContender implements Contender {
    public static final String PREFIX = "BENCH_INT_";
    static final String TABLE = PREFIX + "LOCK";

    private final String jdbcUrl;
    private final Duration idleBetweenTries;

    SpringIntegrationContender(String jdbcUrl, Duration idleBetweenTries) {
        this.jdbcUrl = jdbcUrl;
        this.idleBetweenTries = idleBetweenTries;
    }

    @Override
    public String name() {
        return "Spring Integration " + Contender.version("spring-integration");
    }

    @Override
    public String howItWaits() {
        return "`lock.tryLock(wait)`: the library polls the table every `idleBetweenTries`, set to "
                + Pools.format(idleBetweenTries) + " (its default is 100 ms)";
    }

    @Override
    public String howItRenews() {
        return "`registry.renewLock(key)`: one transaction with one UPDATE per lock, which must run on the thread holding it; "
                + "called by the harness for every lock every lease/3 (the library has no renewal schedule of its own)";
    }

    /** The {@code INT_LOCK} DDL shipped in the spring-integration-jdbc jar, renamed to the benchmark's table. */
    public static String lockTableDdl() {
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
        return ddl.substring(0, ddl.length() - 1)
                .replace("CREATE TABLE INT_LOCK", "CREATE TABLE IF NOT EXISTS " + TABLE)
                .replace("INT_LOCK_PK", TABLE + "_PK");
    }

    @Override
    public void prepareTable(Connection admin) throws SQLException {
        try (Statement st = admin.createStatement()) {
            st.execute(lockTableDdl());
            st.execute("DELETE FROM " + TABLE);
        }
    }

    @Override
    public int countHeld(Connection admin, Duration lease) throws SQLException {
        // The repository stores the client's UTC clock and counts a lock held while CREATED_DATE >= now - TTL.
        try (Statement st = admin.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + TABLE + " WHERE CREATED_DATE >= timezone('utc', CURRENT_TIMESTAMP) - interval '"
                     + lease.toMillis() + " milliseconds'")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Override
    public Client newClient(int index, Duration lease) {
        HikariDataSource pool = Pools.newPool(jdbcUrl, "spring-" + index);
        DefaultLockRepository repository = new DefaultLockRepository(pool);
        repository.setPrefix(PREFIX);
        repository.setTimeToLive((int) lease.toMillis());
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        repository.start();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository);
        registry.setIdleBetweenTries(idleBetweenTries);
        return new Client() {
            @Override
            public Held acquire(String name, Duration wait) throws InterruptedException {
                Lock lock = registry.obtain(name);
                if (!lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                    throw new IllegalStateException("Spring JdbcLockRegistry: " + name + " not acquired within " + wait);
                }
                return lock::unlock;
            }

            @Override
            public Holding holdAll(List<String> names) throws InterruptedException {
                return new RenewingHolder<Lock>("spring-holder-" + index, names, lease.dividedBy(3)) {
                    @Override
                    Lock take(String name) throws InterruptedException {
                        Lock lock = registry.obtain(name);
                        if (!lock.tryLock(0, TimeUnit.NANOSECONDS)) {
                            throw new IllegalStateException("lock " + name + " was not free");
                        }
                        return lock;
                    }

                    @Override
                    Lock renew(String name, Lock held) {
                        try {
                            registry.renewLock(name);
                            return held;
                        } catch (IllegalStateException e) {
                            return null;
                        }
                    }

                    @Override
                    void release(Lock held) {
                        held.unlock();
                    }
                }.start(Duration.ofMinutes(2));
            }

            @Override
            public void close() {
                try {
                    repository.close(); // deletes whatever this client still holds
                } finally {
                    pool.close();
                }
            }
        };
    }
}
