package io.holdfast.bench;

import com.zaxxer.hikari.HikariDataSource;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * ShedLock's JdbcTemplate provider with the database's clock ({@code usingDbTime()}). ShedLock never
 * waits: {@code lock()} answers at once, so a waiting acquire is a {@code lock()} retried every
 * {@code poll} until it succeeds. Each client has its own {@code lockedBy} value, as separate hosts would.
 */
final class ShedLockContender implements Contender {
    static final String TABLE = "bench_shedlock";

    private final String jdbcUrl;
    private final Duration poll;

    ShedLockContender(String jdbcUrl, Duration poll) {
        this.jdbcUrl = jdbcUrl;
        this.poll = poll;
    }

    @Override
    public String name() {
        return "ShedLock " + Contender.version("shedlock");
    }

    @Override
    public String howItWaits() {
        return "none in the library (`lock()` succeeds or returns empty at once); the harness retries `lock()` every "
                + Pools.format(poll);
    }

    @Override
    public String howItRenews() {
        return "`SimpleLock.extend(lease)`: one UPDATE per lock, called by the harness for every lock every lease/3 "
                + "(`KeepAliveLockProvider` issues the same UPDATE but refuses leases under 30 s and extends at lease/2)";
    }

    @Override
    public void prepareTable(Connection admin) throws SQLException {
        try (Statement st = admin.createStatement()) {
            // The DDL of ShedLock's README for PostgreSQL.
            st.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, "
                    + "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
            st.execute("DELETE FROM " + TABLE);
        }
    }

    @Override
    public int countHeld(Connection admin, Duration lease) throws SQLException {
        try (Statement st = admin.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + TABLE + " WHERE lock_until > timezone('utc', CURRENT_TIMESTAMP)")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Override
    public Client newClient(int index, Duration lease) {
        HikariDataSource pool = Pools.newPool(jdbcUrl, "shedlock-" + index);
        JdbcTemplateLockProvider provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(pool))
                .withTableName(TABLE)
                .withLockedByValue("bench-client-" + index)
                .usingDbTime()
                .build());
        return new Client() {
            private Optional<SimpleLock> tryLock(String name) {
                return provider.lock(new LockConfiguration(ClockProvider.now(), name, lease, Duration.ZERO));
            }

            @Override
            public Held acquire(String name, Duration wait) throws InterruptedException {
                long deadline = System.nanoTime() + wait.toNanos();
                while (true) {
                    Optional<SimpleLock> lock = tryLock(name);
                    if (lock.isPresent()) {
                        return lock.get()::unlock;
                    }
                    if (System.nanoTime() - deadline >= 0) {
                        throw new IllegalStateException("ShedLock: " + name + " not acquired within " + wait);
                    }
                    Thread.sleep(poll.toMillis(), (int) (poll.toNanos() % 1_000_000));
                }
            }

            @Override
            public Holding holdAll(List<String> names) throws InterruptedException {
                return new RenewingHolder<SimpleLock>("shedlock-holder-" + index, names, lease.dividedBy(3)) {
                    @Override
                    SimpleLock take(String name) {
                        return tryLock(name).orElseThrow(() -> new IllegalStateException("lock " + name + " was not free"));
                    }

                    @Override
                    SimpleLock renew(String name, SimpleLock held) {
                        return held.extend(lease, Duration.ZERO).orElse(null);
                    }

                    @Override
                    void release(SimpleLock held) {
                        held.unlock();
                    }
                }.start(Duration.ofMinutes(2));
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }
}
