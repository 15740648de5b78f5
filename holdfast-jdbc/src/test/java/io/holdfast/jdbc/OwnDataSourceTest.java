package io.holdfast.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stores built with {@link JdbcLocks} on an application's own HikariCP pool exclude a URI-opened client on the same
 * table, a waiter on the pool wakes when the other releases, and after the Holdfast client closes the pool is open,
 * has every connection back, and its connections are as the application configured them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OwnDataSourceTest {
    private static final String TABLE = TestTables.fresh();
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

    @AfterAll
    static void dropTables() throws SQLException {
        TestTables.drop(PG, TABLE);
        TestTables.drop(MARIADB, TABLE);
    }

    @Test
    void postgresqlPool() throws Exception {
        try (HikariDataSource pool = pool(PG, null, true)) {
            exercise(pool, PG + "&table=" + TABLE);
            assertThat(query(pool, "SELECT count(*) FROM pg_listening_channels()")).isEqualTo("0");
        }
    }

    /** The pool hands out connections without auto-commit in zone +05:00; Holdfast's work must leave both so. */
    @Test
    void mariadbPoolKeepsItsSessionSettings() throws Exception {
        try (HikariDataSource pool = pool(MARIADB, "SET time_zone = '+05:00'", false)) {
            exercise(pool, MARIADB + "&table=" + TABLE);
            try (Connection c = pool.getConnection()) {
                assertThat(c.getAutoCommit()).isFalse();
            }
            assertThat(query(pool, "SELECT @@session.time_zone")).isEqualTo("+05:00");
        }
    }

    @Test
    void sqliteDataSource(@TempDir Path dir) throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("locks.db");
        try (HikariDataSource pool = pool(url, null, true)) {
            exercise(pool, "sqlite:" + dir.resolve("locks.db") + "?table=" + TABLE);
        }
    }

    private static void exercise(HikariDataSource pool, String uri) throws Exception {
        Holdfast own = Holdfast.builder(JdbcLocks.builder(pool).table(TABLE).build()).holderName("own-pool").connect();
        try (Holdfast other = Holdfast.connect(uri)) {
            String name = "own/" + TestTables.fresh();
            try (Hold hold = own.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(other.lock(name).tryAcquire()).isEmpty();
                assertThat(other.admin().status(name).orElseThrow().holder()).isEqualTo("own-pool");
            }
            Hold theirs = other.lock(name).acquire(Duration.ofSeconds(5));
            assertThat(own.lock(name).tryAcquire()).isEmpty();
            CompletableFuture<Hold> waiter = own.lock(name).acquireAsync(Duration.ofSeconds(20));
            theirs.close();
            Hold mine = waiter.get(30, TimeUnit.SECONDS);
            assertThat(mine.fencingToken()).isGreaterThan(theirs.fencingToken());
            mine.close();
        } finally {
            own.close();
        }
        assertThat(pool.isClosed()).isFalse();
        assertThat(query(pool, "SELECT 1")).isEqualTo("1");
        for (int i = 0; i < 50 && pool.getHikariPoolMXBean().getActiveConnections() > 0; i++) {
            Thread.sleep(100);
        }
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("connections still borrowed after close").isZero();
    }

    private static HikariDataSource pool(String url, String initSql, boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setAutoCommit(autoCommit);
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(4);
        config.setPoolName("application");
        if (initSql != null) {
            config.setConnectionInitSql(initSql);
        }
        return new HikariDataSource(config);
    }

    private static String query(HikariDataSource pool, String sql) throws SQLException {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
