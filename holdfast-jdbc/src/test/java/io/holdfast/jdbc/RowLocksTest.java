package io.holdfast.jdbc;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockLostException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Row locks of open transactions (mode=row) on the real PostgreSQL and MariaDB servers, beyond what they share with
 * the session locks (NativeLocksTest): a holder's session ended from outside Holdfast ({@code pg_terminate_backend},
 * {@code KILL}) frees the row at once and its holder is told; concurrent first uses of a name create its row once.
 */
@Timeout(60)
class RowLocksTest {
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
    private static final String TABLE = TestTables.fresh();

    private static String url(String server) {
        return server.equals("postgresql") ? PG : MARIADB;
    }

    private static String uri(String server) {
        return url(server) + "&mode=row&table=" + TABLE;
    }

    @AfterAll
    static void dropTables() throws SQLException {
        for (String server : List.of("postgresql", "mariadb")) {
            TestTables.drop(url(server), TABLE);
            TestTables.drop(url(server), TABLE + "_row_locks");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void aSessionKilledOutsideHoldfastFreesTheRowAtOnceAndItsHolderIsTold(String server) throws Exception {
        try (Holdfast a = Holdfast.connect(uri(server)); Holdfast b = Holdfast.connect(uri(server))) {
            String name = "row/" + UUID.randomUUID();
            Hold hold = a.lock(name, Duration.ofSeconds(3), true).acquire(Duration.ofSeconds(5));
            CountDownLatch lost = new CountDownLatch(1);
            AtomicReference<String> reason = new AtomicReference<>();
            hold.onLost((h, why) -> {
                reason.set(why);
                lost.countDown();
            });
            assertThat(b.lock(name).tryAcquire()).as("tryAcquire while the row is locked").isEmpty();

            killHoldingSession(server, name);

            // A row lock has no lease of its own: only the end of the holding transaction frees it.
            Optional<Hold> taken = b.lock(name).tryAcquire(Duration.ofSeconds(10));
            assertThat(taken).as("the row, free once the holding session ended").isPresent();
            assertThat(taken.get().fencingToken()).as("the next token, above the killed holder's").isGreaterThan(hold.fencingToken());
            assertThat(lost.await(10, TimeUnit.SECONDS)).as("the holder's renewal check reports the loss").isTrue();
            assertThat(reason.get()).contains("no longer has this hold");
            assertThat(hold.isValid()).isFalse();
            assertThatThrownBy(hold::close).isInstanceOf(LockLostException.class);
            taken.get().close();
        }
    }

    /** A release on a session that was killed before any renewal check noticed: the release reports the loss. */
    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void releasingAHoldWhoseSessionWasKilledReportsTheLoss(String server) throws Exception {
        try (Holdfast a = Holdfast.connect(uri(server)); Holdfast b = Holdfast.connect(uri(server))) {
            String name = "row/" + UUID.randomUUID();
            Hold hold = a.lock(name).acquire(Duration.ofSeconds(5)); // default 30 s lease: no check within this test
            killHoldingSession(server, name);
            assertThatThrownBy(hold::close).isInstanceOf(LockLostException.class).hasMessageContaining("no longer had this hold");
            try (Hold next = b.lock(name).tryAcquire().orElseThrow(() -> new AssertionError("the killed holder's row stayed locked"))) {
                assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void concurrentFirstUsesOfANameCreateItsRowOnceAndOneOfThemHoldsIt(String server) throws Exception {
        int clients = 4;
        ExecutorService executor = Executors.newFixedThreadPool(clients);
        List<Holdfast> holdfasts = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                holdfasts.add(Holdfast.connect(uri(server)));
            }
            for (int round = 0; round < 5; round++) {
                String name = "row/first/" + UUID.randomUUID();
                CyclicBarrier start = new CyclicBarrier(clients);
                List<Future<Optional<Hold>>> tries = new ArrayList<>();
                for (Holdfast h : holdfasts) {
                    tries.add(executor.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return h.lock(name).tryAcquire();
                    }));
                }
                List<Hold> holds = new ArrayList<>();
                for (Future<Optional<Hold>> f : tries) {
                    f.get(30, TimeUnit.SECONDS).ifPresent(holds::add);
                }
                assertThat(holds).as("holders of a new name in round %d", round).hasSize(1);
                assertThat(rowsNamed(server, name)).as("rows of the name").isEqualTo(1);
                holds.get(0).close();
            }
        } finally {
            executor.shutdownNow();
            for (Holdfast h : holdfasts) {
                h.close();
            }
        }
    }

    /**
     * Ends the session whose transaction has locked {@code name}'s row, as an operator or a server time-out would.
     * PostgreSQL: the row's {@code xmax} is the holder's transaction, whose own lock names its backend. MariaDB lists
     * no row lock nobody waits for; the holding transaction has written its connection id into the row, read here
     * uncommitted.
     */
    private static void killHoldingSession(String server, String name) throws SQLException {
        try (Connection c = DriverManager.getConnection(url(server))) {
            if (server.equals("postgresql")) {
                try (PreparedStatement ps = c.prepareStatement("SELECT l.pid FROM " + TABLE + "_row_locks r JOIN pg_locks l "
                        + "ON l.locktype = 'transactionid' AND l.transactionid = r.xmax AND l.granted WHERE r.lock_name = ?")) {
                    ps.setString(1, name);
                    long pid = single(ps);
                    try (Statement st = c.createStatement()) {
                        st.execute("SELECT pg_terminate_backend(" + pid + ")");
                    }
                }
            } else {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
                try (PreparedStatement ps = c.prepareStatement("SELECT session_id FROM " + TABLE + "_row_locks WHERE lock_name = ?")) {
                    ps.setString(1, name);
                    long id = single(ps);
                    try (Statement st = c.createStatement()) {
                        st.execute("KILL " + id);
                    }
                }
            }
        }
    }

    private static long single(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).as("the holding session").isTrue();
            long v = rs.getLong(1);
            assertThat(rs.wasNull()).as("the holding session's id is null").isFalse();
            return v;
        }
    }

    private static int rowsNamed(String server, String name) throws SQLException {
        try (Connection c = DriverManager.getConnection(url(server));
                PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + TABLE + "_row_locks WHERE lock_name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
