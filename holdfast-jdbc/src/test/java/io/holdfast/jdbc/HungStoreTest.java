package io.holdfast.jdbc;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
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
            CompletableFuture<LockInfo> storeAtLoss = new CompletableFuture<>();
            hold.onLost((h, reason) -> {
                storeAtLoss.complete(observer.admin().status(name).orElseThrow());
                lost.complete(reason);
            });
            long stalledAt = System.nanoTime();
            proxy.stall(); // the renewal at lease/3 now hangs (PostgreSQL's socket time-out is 30 s)

            String reason = lost.get(20, TimeUnit.SECONDS);
            long lostAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalledAt);
            assertThat(reason).contains("could not be renewed in time");
            assertThat(lostAfterMs).as("lost at the deadline, long before the hung call's 30 s time-out").isLessThan(10_000);
            LockInfo info = storeAtLoss.get(5, TimeUnit.SECONDS);
            assertThat(info.held()).as("the store still had the lock when the holder was told").isTrue();
            assertThat(info.ownerId()).isNotNull();
            assertThat(hold.isValid()).isFalse();

            // Once the store's lease runs out, another client takes it with a greater token.
            Hold next = observer.lock(name).acquire(lease.plusSeconds(10));
            assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
            next.close();
            proxy.unstall();
            assertThatThrownBy(hold::close).isInstanceOf(LockLostException.class);
        }
    }
}
