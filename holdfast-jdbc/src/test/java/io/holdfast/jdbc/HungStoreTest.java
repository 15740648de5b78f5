package io.holdfast.jdbc;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockLostException;
import io.holdfast.testkit.LoopbackProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A store that stops answering without closing anything (a black-holed network): the renewal call hangs
 * far longer than the lease, and the hold must still turn lost at its local deadline, before the store
 * frees the lock, not when the call finally times out.
 */
@Timeout(90)
class HungStoreTest {
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @Test
    void aHoldWhoseRenewalHangsIsLostAtItsDeadlineBeforeTheStoreFreesIt() throws Exception {
        String table = "&table=hf_hung_" + UUID.randomUUID().toString().substring(0, 8).replace('-', '_');
        String name = "hung/" + UUID.randomUUID();
        try (LoopbackProxy proxy = new LoopbackProxy("127.0.0.1", 5432);
             Holdfast observer = Holdfast.connect(PG + table);
             Holdfast cutOff = Holdfast.connect("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test?user=postgres" + table)) {
            Duration lease = Duration.ofSeconds(3);
            Hold hold = cutOff.lock(name, lease, true).acquire(Duration.ofSeconds(5));
            CompletableFuture<String> lost = new CompletableFuture<>();
            hold.onLost((h, reason) -> lost.complete(reason));
            long stalledAt = System.nanoTime();
            proxy.stall(); // the renewal at lease/3 now hangs (PostgreSQL's socket time-out is 30 s)

            // The last moment the hold said it was valid, as a lower bound taken before each look: a loaded machine can
            // only make it earlier, never later, so it cannot fail this test by itself (a listener's store look could).
            long lastValidAtMs = 0;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!lost.isDone() && System.nanoTime() < until) {
                long before = System.currentTimeMillis();
                if (hold.isValid()) {
                    lastValidAtMs = before;
                }
                Thread.sleep(5);
            }
            String reason = lost.get(1, TimeUnit.SECONDS);
            long lostAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalledAt);
            assertThat(reason).contains("could not be renewed in time");
            assertThat(lostAfterMs).as("lost at the deadline, long before the hung call's 30 s time-out").isLessThan(10_000);
            long storeFreesAtMs = expiresAt(table.substring("&table=".length()), name);
            assertThat(lastValidAtMs).as("the hold said it was valid at %d ms, the store frees it at %d ms (the database's clock, "
                    + "this machine's)", lastValidAtMs, storeFreesAtMs).isPositive().isLessThan(storeFreesAtMs);
            assertThat(hold.isValid()).isFalse();

            // Once the store's lease runs out, another client takes it with a greater token.
            Hold next = observer.lock(name).acquire(lease.plusSeconds(10));
            assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
            next.close();
            proxy.unstall();
            assertThatThrownBy(hold::close).isInstanceOf(LockLostException.class);
        }
    }

    /** The row's expiry in epoch milliseconds by PostgreSQL's clock (on this machine, the same clock as the test's). */
    private static long expiresAt(String table, String name) throws java.sql.SQLException {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(PG);
             java.sql.PreparedStatement q = c.prepareStatement("SELECT expires_at FROM " + table + " WHERE lock_name = ?")) {
            q.setString(1, name);
            try (java.sql.ResultSet r = q.executeQuery()) {
                assertThat(r.next()).as("the hold's row").isTrue();
                return r.getLong(1);
            }
        }
    }
}
