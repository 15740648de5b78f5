package io.holdfast.jdbc;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link JdbcFencing} on real PostgreSQL, MariaDB and SQLite: newer tokens apply, lower ones are refused and leave
 * the row as it was, equal tokens apply (refused with {@code oncePerToken()}), concurrent writers end with the highest
 * token's write whichever commits first, a real stale hold is refused, and names that could carry SQL are rejected.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcFencingTest {
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
    private static final String TABLE = TestTables.fresh();
    private static final String LOCKS = TestTables.fresh();

    @TempDir
    static Path dir;
    private static String sqlite;

    @BeforeAll
    static void createTables() throws SQLException {
        sqlite = "jdbc:sqlite:" + dir.resolve("fencing.db");
        for (String url : List.of(PG, MARIADB, sqlite)) {
            try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE " + TABLE + " (item VARCHAR(40) NOT NULL, shard INT NOT NULL, qty INT NOT NULL, "
                        + "note VARCHAR(40), fence BIGINT NOT NULL, PRIMARY KEY (item, shard))");
            }
        }
    }

    @AfterAll
    static void dropTables() throws SQLException {
        for (String url : List.of(PG, MARIADB)) {
            TestTables.drop(url, TABLE);
            TestTables.drop(url, LOCKS);
        }
    }

    private static final JdbcFencing STOCK = JdbcFencing.of(TABLE, "fence", "item", "shard");

    private static String url(String db) {
        return switch (db) {
            case "postgresql" -> PG;
            case "mariadb" -> MARIADB;
            default -> sqlite;
        };
    }

    private static Connection connect(String db) throws SQLException {
        Connection c = DriverManager.getConnection(url(db));
        if (db.equals("sqlite")) {
            try (Statement st = c.createStatement()) {
                st.execute("PRAGMA busy_timeout = 20000");
            }
        }
        return c;
    }

    /** A new row {qty 10, note 'start', fence}, with an item name no other test uses. */
    private static String row(Connection c, long fence) throws SQLException {
        String item = "item-" + System.nanoTime();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (item, shard, qty, note, fence) VALUES (?, 1, 10, 'start', ?)")) {
            ps.setString(1, item);
            ps.setLong(2, fence);
            ps.executeUpdate();
        }
        return item;
    }

    /** The row as "qty/note/fence". */
    private static String read(Connection c, String item) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT qty, note, fence FROM " + TABLE + " WHERE item = ? AND shard = 1")) {
            ps.setString(1, item);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("row %s", item).isTrue();
                return rs.getInt(1) + "/" + rs.getString(2) + "/" + rs.getLong(3);
            }
        }
    }

    private static Map<String, Object> set(int qty, String note) {
        Map<String, Object> values = new HashMap<>();
        values.put("qty", qty);
        values.put("note", note);
        return values;
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
    void newerTokensApplyAndRecordTheirToken(String db) throws Exception {
        try (Connection c = connect(db)) {
            String item = row(c, 0);
            assertThat(STOCK.update(c, 5, set(9, "five"), item, 1)).isTrue();
            assertThat(read(c, item)).isEqualTo("9/five/5");
            assertThat(STOCK.update(c, 8, set(7, null), item, 1)).isTrue();
            assertThat(read(c, item)).isEqualTo("7/null/8");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
    void aLowerTokenIsRefusedAndTheRowIsUnchanged(String db) throws Exception {
        try (Connection c = connect(db)) {
            String item = row(c, 9);
            assertThat(STOCK.update(c, 8, set(1, "stale"), item, 1)).isFalse();
            assertThat(STOCK.oncePerToken().update(c, 8, set(1, "stale"), item, 1)).isFalse();
            assertThat(read(c, item)).isEqualTo("10/start/9");
            // A key that finds no row applies nothing either.
            assertThat(STOCK.update(c, 100, set(1, "nowhere"), item, 2)).isFalse();
            assertThat(read(c, item)).isEqualTo("10/start/9");
        }
    }

    /** The same token again (the same hold writing twice, a re-entered hold, a retried transaction) applies. */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
    void theSameTokenAppliesAgainUnlessOncePerToken(String db) throws Exception {
        try (Connection c = connect(db)) {
            String item = row(c, 0);
            assertThat(STOCK.update(c, 7, set(9, "first"), item, 1)).isTrue();
            assertThat(STOCK.update(c, 7, set(8, "second"), item, 1)).isTrue();
            assertThat(read(c, item)).isEqualTo("8/second/7");
            // The same values again still counts as applied (the drivers count matched rows).
            assertThat(STOCK.update(c, 7, set(8, "second"), item, 1)).isTrue();

            JdbcFencing once = STOCK.oncePerToken();
            assertThat(once.update(c, 7, set(1, "again"), item, 1)).isFalse();
            assertThat(read(c, item)).isEqualTo("8/second/7");
            assertThat(once.update(c, 11, set(6, "eleven"), item, 1)).isTrue();
            assertThat(once.update(c, 11, set(5, "twice"), item, 1)).isFalse();
            assertThat(read(c, item)).isEqualTo("6/eleven/11");
        }
    }

    /** A claim (no values) before the read: from then on only the claimed token's writes and newer ones apply. */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
    void aClaimRaisesTheFenceAlone(String db) throws Exception {
        try (Connection c = connect(db)) {
            String item = row(c, 3);
            assertThat(STOCK.update(c, 4, Map.of(), item, 1)).isTrue();
            assertThat(read(c, item)).isEqualTo("10/start/4");
            assertThat(STOCK.update(c, 5, Map.of(), item, 1)).isTrue();
            assertThat(STOCK.update(c, 4, set(9, "claimed by 4"), item, 1)).isFalse();
            assertThat(STOCK.update(c, 5, set(9, "claimed by 5"), item, 1)).isTrue();
            assertThat(read(c, item)).isEqualTo("9/claimed by 5/5");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
    void itRunsInTheCallersTransaction(String db) throws Exception {
        try (Connection c = connect(db)) {
            String item = row(c, 0);
            c.setAutoCommit(false);
            assertThat(STOCK.update(c, 3, set(2, "rolled back"), item, 1)).isTrue();
            assertThat(c.getAutoCommit()).isFalse();
            c.rollback();
            c.setAutoCommit(true);
            assertThat(read(c, item)).isEqualTo("10/start/0");
        }
    }

    /**
     * The higher token's update is uncommitted when the lower one is sent: the lower one waits for the row (observed
     * on the servers) and, once the higher commits, is refused. Then the other way round: the higher waits behind an
     * uncommitted lower write and applies.
     */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
    void aWriterWaitingForTheRowIsJudgedByWhatCommittedBeforeIt(String db) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection first = connect(db); Connection second = connect(db); Connection monitor = connect(db)) {
            for (long[] order : new long[][] {{20, 10}, {10, 20}}) {
                String item = row(monitor, 1);
                first.setAutoCommit(false);
                assertThat(STOCK.update(first, order[0], set((int) order[0], "first"), item, 1)).isTrue();
                Future<Boolean> late = pool.submit(() -> STOCK.update(second, order[1], set((int) order[1], "second"), item, 1));
                awaitLockWait(db, monitor, late);
                assertThat(late).isNotDone();
                first.commit();
                first.setAutoCommit(true);
                boolean applied = late.get(30, TimeUnit.SECONDS);
                assertThat(applied).as("token %d after %d committed", order[1], order[0]).isEqualTo(order[1] > order[0]);
                assertThat(read(monitor, item)).isEqualTo("20/" + (order[1] > order[0] ? "second" : "first") + "/20");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Waits until an UPDATE of the test table waits for a row lock (PostgreSQL, MariaDB); SQLite cannot be asked. */
    private static void awaitLockWait(String db, Connection monitor, Future<?> late) throws Exception {
        String sql = switch (db) {
            case "postgresql" -> "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?";
            case "mariadb" -> "SELECT count(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT' AND trx_query LIKE ?";
            default -> null;
        };
        if (sql == null) {
            Thread.sleep(300); // SQLite: the second writer is in its busy handler, or about to be
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            try (PreparedStatement ps = monitor.prepareStatement(sql)) {
                ps.setString(1, "UPDATE " + TABLE + "%");
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
            }
            // InnoDB refreshes INNODB_TRX only when it was not read for 100 ms: reading it more often sees a stale copy.
            Thread.sleep(db.equals("mariadb") ? 150 : 20);
        }
        String seen = db.equals("postgresql") ? "SELECT wait_event_type, state, query FROM pg_stat_activity"
                : "SELECT id, command, state, info FROM information_schema.PROCESSLIST";
        StringBuilder rows = new StringBuilder();
        try (Statement st = monitor.createStatement(); ResultSet rs = st.executeQuery(seen)) {
            while (rs.next()) {
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    rows.append(rs.getString(i)).append(i == rs.getMetaData().getColumnCount() ? "\n" : " | ");
                }
            }
        }
        String outcome = late.isDone() ? "done: " + outcomeOf(late) : "not done";
        throw new AssertionError("the second UPDATE never waited for the row lock (" + outcome + "); the server saw:\n" + rows);
    }

    private static String outcomeOf(Future<?> done) {
        try {
            return String.valueOf(done.get());
        } catch (Exception e) {
            return e.toString();
        }
    }

    /** Writers with distinct tokens race, round after round: the row ends with the highest token and its values. */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
    void concurrentWritersEndWithTheHighestToken(String db) throws Exception {
        int writers = 4;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Connection> connections = new ArrayList<>();
        try (Connection monitor = connect(db)) {
            for (int i = 0; i < writers; i++) {
                connections.add(connect(db));
            }
            for (int round = 0; round < 10; round++) {
                String item = row(monitor, 0);
                List<Long> tokens = new ArrayList<>();
                for (int i = 0; i < writers; i++) {
                    tokens.add(100L * round + 10L * i + 1);
                }
                Collections.shuffle(tokens);
                CyclicBarrier start = new CyclicBarrier(writers);
                List<Future<Boolean>> results = new ArrayList<>();
                for (int i = 0; i < writers; i++) {
                    Connection c = connections.get(i);
                    long token = tokens.get(i);
                    results.add(pool.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return STOCK.update(c, token, set((int) token, "w" + token), item, 1);
                    }));
                }
                long highest = Collections.max(tokens);
                for (int i = 0; i < writers; i++) {
                    boolean applied = results.get(i).get(30, TimeUnit.SECONDS);
                    if (tokens.get(i) == highest) {
                        assertThat(applied).as("the highest token %d", highest).isTrue();
                    }
                }
                assertThat(read(monitor, item)).isEqualTo(highest + "/w" + highest + "/" + highest);
            }
        } finally {
            pool.shutdownNow();
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    /** Real holds: the first holder's lock is force-released and taken by a second; the first's late write is refused. */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "sqlite"})
    void aStaleHoldIsRefusedAfterANewerHolderWrote(String db) throws Exception {
        String uri = db.equals("sqlite") ? "sqlite:" + dir.resolve("locks.db") : url(db) + "&table=" + LOCKS;
        try (Holdfast first = Holdfast.connect(uri); Holdfast second = Holdfast.connect(uri); Connection c = connect(db)) {
            String item = row(c, 0);
            String name = "stock/" + item;
            Hold stale = first.lock(name).acquire(Duration.ofSeconds(5));
            assertThat(STOCK.update(c, stale, set(9, "stale holder"), item, 1)).isTrue();
            assertThat(second.admin().forceRelease(name)).isTrue();
            try (Hold newer = second.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(newer.fencingToken()).isGreaterThan(stale.fencingToken());
                assertThat(STOCK.update(c, newer, set(8, "newer holder"), item, 1)).isTrue();
                assertThat(STOCK.update(c, stale, set(1, "stale holder"), item, 1)).isFalse();
                assertThat(read(c, item)).isEqualTo("8/newer holder/" + newer.fencingToken());
            }
        }
    }

    @Test
    void namesThatCouldCarrySqlAreRejectedSayingWhatIsAllowed() {
        for (String table : new String[] {"stock; DROP TABLE x", "1stock", "st-ock", "\"stock\"", "a.b.c", "", "x".repeat(64)}) {
            assertThatThrownBy(() -> JdbcFencing.of(table, "fence", "item"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("table '" + table + "' is not allowed")
                    .hasMessageContaining("a letter or _ then up to 62 letters, digits or _");
        }
        assertThat(JdbcFencing.of("app.stock_2", "fence", "item")).hasToString("JdbcFencing[app.stock_2.fence <= token by item]");
        assertThatThrownBy(() -> JdbcFencing.of("stock", "fence = 0 --", "item"))
                .hasMessageStartingWith("fence column 'fence = 0 --' is not allowed; allowed: an unquoted SQL name");
        assertThatThrownBy(() -> JdbcFencing.of("stock", "fence", "item", "id OR 1=1"))
                .hasMessageStartingWith("key column 'id OR 1=1' is not allowed");
        assertThatThrownBy(() -> JdbcFencing.of("stock", "fence"))
                .hasMessage("at least one key column is needed, to find the row to update");
        assertThatThrownBy(() -> JdbcFencing.of("stock", "fence", "item", "FENCE"))
                .hasMessageContaining("column 'FENCE' is named twice");
        assertThatThrownBy(() -> JdbcFencing.of("stock", "fence", "item", "Item"))
                .hasMessageContaining("column 'Item' is named twice");
    }

    /** Bad values are refused before anything reaches the database (the connection is never used). */
    @Test
    void badUpdatesAreRejectedBeforeAnyStatement() throws Exception {
        try (Connection closed = DriverManager.getConnection(sqlite)) {
            closed.close();
            assertThatThrownBy(() -> STOCK.update(closed, 5, Map.of("qty = 0, note", 1), "a", 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("value column 'qty = 0, note' is not allowed");
            assertThatThrownBy(() -> STOCK.update(closed, 5, Map.of("Fence", 1), "a", 1))
                    .hasMessage("value column 'Fence' is the fence column; the update sets it to the token");
            assertThatThrownBy(() -> STOCK.update(closed, 5, Map.of("qty", 1), "a"))
                    .hasMessage("the key has 1 values, for 2 key columns (item, shard)");
            assertThatThrownBy(() -> STOCK.update(closed, 5, Map.of("qty", 1), "a", null))
                    .hasMessageStartingWith("key column shard is null");
            assertThatThrownBy(() -> STOCK.update(closed, 0, Map.of("qty", 1), "a", 1))
                    .hasMessage("token 0 is not a fencing token; allowed: 1 and above");
        }
    }
}
