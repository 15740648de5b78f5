package io.holdfast.jdbc;

import io.holdfast.spi.Attempt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding 20: statements per lock-table call on MariaDB, counted by the server (the session's
 * {@code Questions} status). A refused attempt (every poll of a waiter) takes 2; the README's cost line
 * quotes these numbers.
 */
@Timeout(60)
class MySqlStatementsTest {
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
    private static final String TABLE = TestTables.fresh();
    private static final Duration LEASE = Duration.ofSeconds(30);

    @AfterAll
    static void dropTable() throws SQLException {
        TestTables.drop(MARIADB, TABLE);
    }

    @Test
    void statementsPerCall() throws Exception {
        JdbcLockStore store = new JdbcLockStore(JdbcUri.parse(MARIADB + "&table=" + TABLE + "&poolSize=1"));
        try {
            Dialect d = store.dialect;
            long firstUse = count(store, c -> assertThat(d.tryAcquire(c, "n", "owner-a", "h", LEASE, false).acquired()).isTrue());
            long busy = count(store, c -> assertThat(d.tryAcquire(c, "n", "owner-b", "h", LEASE, false).acquired()).isFalse());
            long reentry = count(store, c -> assertThat(d.tryAcquire(c, "n", "owner-a", "h", LEASE, false).acquired()).isTrue());
            long release = count(store, c -> assertThat(d.release(c, "n", "owner-a")).isTrue());
            long freeRow = count(store, c -> assertThat(d.tryAcquire(c, "n", "owner-b", "h", LEASE, false).acquired()).isTrue());
            assertThat(busy).as("statements of a refused attempt").isEqualTo(2);
            assertThat(freeRow).as("statements to take a free lock whose row exists").isEqualTo(1);
            assertThat(reentry).as("statements of a re-entrant (retried) acquire").isEqualTo(1);
            assertThat(release).as("statements of a release").isEqualTo(1);
            assertThat(firstUse).as("statements of a name's first use").isEqualTo(3);
        } finally {
            store.close();
        }
    }

    interface Step {
        void run(Connection c) throws SQLException;
    }

    /** Statements the server counted for {@code step}, on one connection, less those of an empty step. */
    private static long count(JdbcLockStore store, Step step) throws SQLException {
        return store.connections.with(c -> {
            long a = questions(c);
            long b = questions(c);
            step.run(c);
            long after = questions(c);
            return (after - b) - (b - a);
        });
    }

    private static long questions(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW SESSION STATUS LIKE 'Questions'")) {
            rs.next();
            return rs.getLong(2);
        }
    }
}
