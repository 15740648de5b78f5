package io.holdfast.jdbc;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.HoldfastException;
import io.holdfast.StoreUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** A waiter retries only what is transient: an error the store will keep giving ends the wait at once, with its message. */
@Timeout(60)
class WaitFailureTest {
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    @Test
    void aWaiterWhoseStoreRefusesItsStatementsFailsAtOnceWithTheStoresMessage() throws Exception {
        String table = "hf_gone_" + UUID.randomUUID().toString().substring(0, 8);
        String uri = PG + "&table=" + table;
        try (Holdfast holder = Holdfast.connect(uri); Holdfast waiter = Holdfast.connect(uri);
             Connection admin = DriverManager.getConnection(PG)) {
            Hold hold = holder.lock("gone/a").acquire(Duration.ofSeconds(5));
            CompletableFuture<Hold> waiting = waiter.lock("gone/a").acquireAsync(Duration.ofSeconds(30));
            Thread.sleep(300); // the waiter has made its first attempt and waits
            long dropped = System.nanoTime();
            try (Statement st = admin.createStatement()) {
                st.execute("DROP TABLE " + table);
            }
            // The holder's release meets the missing table too, and says so.
            assertThat(catchThrowable(hold::close)).isInstanceOf(HoldfastException.class).hasMessageContaining("does not exist");

            Throwable error = catchThrowable(() -> waiting.get(20, TimeUnit.SECONDS));
            long failedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - dropped);
            assertThat(error).isInstanceOf(ExecutionException.class);
            assertThat(error.getCause()).isInstanceOf(HoldfastException.class).isNotInstanceOf(StoreUnavailableException.class);
            assertThat(error.getCause().getMessage()).contains(table).contains("does not exist");
            assertThat(failedAfterMs).as("failed at its next poll, not at the end of its 30 s wait").isLessThan(15_000);
        }
    }
}
