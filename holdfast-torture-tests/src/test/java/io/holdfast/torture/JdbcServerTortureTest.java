package io.holdfast.torture;

import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.TortureResult;
import io.holdfast.testkit.torture.TortureSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/**
 * The torture run on the shared PostgreSQL and MariaDB servers (127.0.0.1:5432 and :3306), each in a lock
 * table of its own, with the register in the same database. These servers are the machine's, shared with
 * every other test, so the harness does not restart them: kills, pauses and partitions only.
 */
class JdbcServerTortureTest {
    private static final String TABLE = "hf_torture_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
    private String dropUrl;

    @AfterEach
    void dropLockTable() throws Exception {
        if (dropUrl != null) {
            try (Connection c = DriverManager.getConnection(dropUrl); Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + TABLE);
            }
        }
    }

    @Test
    void onPostgresqlTheLockHoldsAndTheFencedCounterStaysExactUnderKillsPausesAndPartitions() throws Exception {
        String jdbc = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
        dropUrl = jdbc;
        TortureResult r = TortureRuns.run(TortureRuns.settings("postgresql", jdbc + "&table=" + TABLE + "&connectTimeout=2s",
                EnumSet.of(Fault.KILL, Fault.PAUSE, Fault.PARTITION)).registerUrl(jdbc).build(), null);

        TortureRuns.assertFencedCounterExactUnderEveryFault(r, EnumSet.of(Fault.KILL, Fault.PAUSE, Fault.PARTITION));
        TortureRuns.assertLinearizableLock(r);
    }

    @Test
    void onMariaDbTheLockHoldsAndTheFencedCounterStaysExactUnderKillsPausesAndPartitions() throws Exception {
        String jdbc = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
        dropUrl = jdbc;
        TortureResult r = TortureRuns.run(TortureRuns.settings("mariadb", jdbc + "&table=" + TABLE + "&connectTimeout=2s",
                EnumSet.of(Fault.KILL, Fault.PAUSE, Fault.PARTITION)).registerUrl(jdbc).build(), null);

        TortureRuns.assertFencedCounterExactUnderEveryFault(r, EnumSet.of(Fault.KILL, Fault.PAUSE, Fault.PARTITION));
        TortureRuns.assertLinearizableLock(r);
    }

    /** A read-write lock (never a writer beside anyone) and an election (one leader at a time) on PostgreSQL. */
    @ParameterizedTest
    @EnumSource(value = TortureSettings.Recipe.class, names = {"READ_WRITE", "LEADER"})
    void onPostgresqlTheRecipesHoldUnderKillsPausesAndPartitions(TortureSettings.Recipe recipe) throws Exception {
        String jdbc = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
        dropUrl = jdbc;
        Set<Fault> faults = EnumSet.of(Fault.KILL, Fault.PAUSE, Fault.PARTITION);
        TortureResult r = TortureRuns.run(TortureRuns.settings("postgresql-" + recipe.name().toLowerCase(Locale.ROOT),
                jdbc + "&table=" + TABLE + "&connectTimeout=2s", faults).registerUrl(jdbc).recipe(recipe).build(), null);

        if (recipe == TortureSettings.Recipe.READ_WRITE) {
            TortureRuns.assertReadWriteLockRun(r, faults);
        } else {
            TortureRuns.assertLeaderRun(r, faults);
        }
    }
}
