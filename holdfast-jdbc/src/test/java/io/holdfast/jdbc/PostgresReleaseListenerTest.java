package io.holdfast.jdbc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding 13: the LISTEN connection goes silently dead (no reset, no FIN: every byte is dropped).
 * The listener must notice, reconnect, and hear later releases again, instead of leaving every waiter
 * on polling for good.
 */
@Timeout(90)
class PostgresReleaseListenerTest {
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @Test
    void aSilentlyDeadListenConnectionIsReplacedAndLaterReleasesWakeWaitersAgain() throws Exception {
        String table = TestTables.fresh();
        String channel = "holdfast_" + table;
        try (BlackHoleProxy proxy = new BlackHoleProxy("127.0.0.1", 5432); Connection notifier = DriverManager.getConnection(PG)) {
            JdbcUri uri = JdbcUri.parse("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test?user=postgres&table=" + table);
            PostgresReleaseListener listener = new PostgresReleaseListener(uri, channel, e -> true);
            try {
                Semaphore woken = new Semaphore(0);
                AutoCloseable watch = listener.watch("x", woken::release);
                assertThat(notifyUntilWoken(notifier, channel, woken, 20)).as("heard before the link went dead").isTrue();

                proxy.blackHoleExisting();
                woken.drainPermits();
                // Nothing is sent now: only the listener's own check can find out that its link is dead.
                assertThat(woken.tryAcquire(45, TimeUnit.SECONDS)).as("waiters are woken once the dead link is noticed").isTrue();
                for (int i = 0; i < 200 && proxy.accepted() < 2; i++) {
                    Thread.sleep(100);
                }
                assertThat(proxy.accepted()).as("the listener reconnected").isGreaterThanOrEqualTo(2);

                woken.drainPermits();
                assertThat(notifyUntilWoken(notifier, channel, woken, 20)).as("a release after the reconnect is heard").isTrue();
                watch.close();
            } finally {
                listener.close();
            }
        }
    }

    /** Sends NOTIFY every 100 ms until the watcher runs; false if it did not within {@code seconds}. */
    private static boolean notifyUntilWoken(Connection c, String channel, Semaphore woken, int seconds) throws Exception {
        for (int i = 0; i < seconds * 10; i++) {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, 'x')")) {
                ps.setString(1, channel);
                ps.execute();
            }
            if (woken.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                return true;
            }
        }
        return false;
    }
}
