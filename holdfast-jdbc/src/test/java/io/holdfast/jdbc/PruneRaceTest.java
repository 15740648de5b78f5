package io.holdfast.jdbc;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding 2: an operator prunes free rows (and raises the floor row) in one transaction while an
 * acquire of a pruned name waits behind it. Whatever rows are deleted, the acquire's token must be
 * greater than every token issued before for that name.
 */
@Timeout(60)
class PruneRaceTest {
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

    /** {@code old}: the recipe the README used to give; {@code readme}: today's, on a row aged past its cut-off. */
    @ParameterizedTest
    @CsvSource({"postgresql,old", "mariadb,old", "sqlite,old", "postgresql,readme", "mariadb,readme", "sqlite,readme"})
    void anAcquireWaitingBehindAPruneGetsAGreaterToken(String server, String recipe) throws Exception {
        String table = TestTables.fresh();
        Path file = server.equals("sqlite") ? Files.createTempFile("holdfast-prune", ".db") : null;
        String jdbc = switch (server) {
            case "postgresql" -> PG;
            case "mariadb" -> MARIADB;
            default -> "jdbc:sqlite:" + file;
        };
        String uri = jdbc + (jdbc.contains("?") ? "&" : "?") + "table=" + table;
        try (Holdfast client = Holdfast.connect(uri); Connection prune = DriverManager.getConnection(jdbc);
             Connection watch = DriverManager.getConnection(jdbc)) {
            String name = "prune/x";
            long last = 0;
            for (int i = 0; i < 5; i++) {
                try (Hold h = client.lock(name).tryAcquire().orElseThrow()) {
                    last = h.fencingToken();
                }
            }
            assertThat(last).isGreaterThanOrEqualTo(5);

            if (recipe.equals("old")) {
                oldRecipe(prune, table);
            } else {
                readmeRecipe(server, prune, table);
            }

            CompletableFuture<Optional<Hold>> acquire = CompletableFuture.supplyAsync(() -> client.lock(name).tryAcquire());
            waitUntilBlocked(server, watch, table, acquire);
            prune.commit();

            Hold h = acquire.get(30, TimeUnit.SECONDS).orElseThrow();
            assertThat(h.fencingToken()).as("token after the prune committed (last before: %d)", last).isGreaterThan(last);
            h.close();
            try (Hold again = client.lock(name).tryAcquire().orElseThrow()) {
                assertThat(again.fencingToken()).isGreaterThan(h.fencingToken());
            }
        } finally {
            if (file != null) {
                Files.deleteIfExists(file);
            } else {
                TestTables.drop(jdbc, table);
            }
        }
    }

    /** Deletes every free row and raises the floor row to the largest token deleted; leaves the transaction open. */
    private static void oldRecipe(Connection prune, String table) throws SQLException {
        prune.setAutoCommit(false);
        long floor;
        try (Statement st = prune.createStatement();
             ResultSet rs = st.executeQuery("SELECT MAX(fencing_token) FROM " + table + " WHERE owner_id IS NULL")) {
            rs.next();
            floor = rs.getLong(1);
        }
        try (Statement st = prune.createStatement()) {
            st.executeUpdate("DELETE FROM " + table + " WHERE owner_id IS NULL");
        }
        try (PreparedStatement ps = prune.prepareStatement("INSERT INTO " + table + " (lock_name, fencing_token) VALUES ('', ?)")) {
            ps.setLong(1, floor);
            ps.executeUpdate();
        }
    }

    /** The README's recipe, word for word but for the table name, after aging the rows past its one-hour cut-off; leaves the transaction open. */
    private static void readmeRecipe(String server, Connection prune, String table) throws SQLException {
        try (Statement st = prune.createStatement()) {
            st.executeUpdate("UPDATE " + table + " SET acquired_at = 0 WHERE lock_name <> ''");
        }
        prune.setAutoCommit(false);
        List<String> sql = switch (server) {
            case "postgresql" -> List.of("DELETE FROM holdfast_locks WHERE lock_name <> '' AND owner_id IS NULL "
                    + "AND acquired_at < (EXTRACT(EPOCH FROM now()) * 1000)::bigint - 3600000");
            case "mariadb" -> List.of("INSERT INTO holdfast_locks (lock_name, fencing_token) SELECT '', MAX(fencing_token) FROM holdfast_locks "
                            + "ON DUPLICATE KEY UPDATE fencing_token = GREATEST(holdfast_locks.fencing_token, VALUES(fencing_token))",
                    "DELETE FROM holdfast_locks WHERE lock_name <> '' AND owner_id IS NULL "
                            + "AND acquired_at < CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) - 3600000");
            default -> List.of("INSERT INTO holdfast_locks (lock_name, fencing_token) SELECT '', MAX(fencing_token) FROM holdfast_locks WHERE true "
                            + "ON CONFLICT (lock_name) DO UPDATE SET fencing_token = MAX(fencing_token, excluded.fencing_token)",
                    "DELETE FROM holdfast_locks WHERE lock_name <> '' AND owner_id IS NULL "
                            + "AND acquired_at < CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) - 3600000");
        };
        try (Statement st = prune.createStatement()) {
            for (String q : sql) {
                st.executeUpdate(q.replace("holdfast_locks", table));
            }
        }
        try (Statement st = prune.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE lock_name = 'prune/x'")) {
            rs.next();
            assertThat(rs.getInt(1)).as("the recipe deletes the aged free row").isZero();
        }
    }

    /** A table created before the token sequence existed gets one that starts above every token in it, the floor row's included. */
    @org.junit.jupiter.api.Test
    void aPostgresTableFromBeforeTheSequenceKeepsItsTokensGrowing() throws Exception {
        String table = TestTables.fresh();
        try (Connection c = DriverManager.getConnection(PG); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + table + " (lock_name VARCHAR(255) NOT NULL PRIMARY KEY, owner_id VARCHAR(64), "
                    + "holder VARCHAR(255), fencing_token BIGINT NOT NULL, expires_at BIGINT, acquired_at BIGINT)");
            st.execute("INSERT INTO " + table + " (lock_name, fencing_token) VALUES ('old', 7), ('', 12)");
        }
        try (Holdfast client = Holdfast.connect(PG + "&table=" + table)) {
            try (Hold fresh = client.lock("new").tryAcquire().orElseThrow(); Hold old = client.lock("old").tryAcquire().orElseThrow()) {
                assertThat(fresh.fencingToken()).isGreaterThan(12);
                assertThat(old.fencingToken()).isGreaterThan(12);
            }
        } finally {
            TestTables.drop(PG, table);
        }
    }

    /** Until the acquire waits on the prune's row lock (server databases); SQLite's writer lock cannot be observed, so a short pause. */
    private static void waitUntilBlocked(String server, Connection watch, String table, CompletableFuture<?> acquire) throws Exception {
        if (server.equals("sqlite")) {
            Thread.sleep(300);
            return;
        }
        String sql = server.equals("postgresql")
                ? "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?"
                : "SELECT count(*) FROM information_schema.processlist WHERE state = 'Updating' AND info LIKE ?";
        for (int i = 0; i < 500; i++) {
            assertThat(acquire).as("the acquire waits for the prune").isNotDone();
            try (PreparedStatement ps = watch.prepareStatement(sql)) {
                ps.setString(1, "%" + table + "%");
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
            }
            Thread.sleep(20);
        }
        StringBuilder seen = new StringBuilder();
        try (Statement st = watch.createStatement(); ResultSet rs = st.executeQuery(server.equals("postgresql")
                ? "SELECT wait_event_type || ' ' || state || ' ' || query FROM pg_stat_activity"
                : "SELECT CONCAT(state, ' ', COALESCE(info, '')) FROM information_schema.processlist")) {
            while (rs.next()) {
                seen.append(rs.getString(1)).append('\n');
            }
        }
        throw new AssertionError("the acquire never waited on the prune's lock; sessions:\n" + seen);
    }
}
