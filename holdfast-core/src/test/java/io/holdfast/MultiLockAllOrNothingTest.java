package io.holdfast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A multi-lock's acquire never returns a hold with a lost part, and gives back off the thread that gave up. With
 * 'b' held by another client, an acquire of [a, b] takes 'a' and waits for 'b'; whatever happens to 'a' meanwhile,
 * the hold it returns is valid on every part, and a cancel or {@code orTimeout} gives 'a' back on the client's I/O
 * pool.
 */
class MultiLockAllOrNothingTest extends PermitFixture {

    private Hold holdBElsewhere() throws InterruptedException {
        return client().lock("b").acquire(Duration.ofSeconds(5));
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aPartForceReleasedWhileWaitingForALaterOneIsTakenAgainNotReturnedLost() throws Exception {
        Hold other = holdBElsewhere();
        RecordingListener events = new RecordingListener();
        MultiLock lock = client(view(), events).multiLock(List.of("a", "b"), Duration.ofMillis(600), true);
        CompletableFuture<MultiHold> f = lock.acquireAsync(Duration.ofSeconds(20));
        assertThat(eventually(() -> store.holder("a").isPresent())).as("the wait took 'a'").isTrue();
        assertThat(store.forceRelease("a")).isTrue();
        assertThat(eventually(() -> events.count(RecordingListener.Kind.LOST) == 1)).as("the wait's renewal found 'a' lost").isTrue();
        other.close();

        try (MultiHold hold = f.get(10, TimeUnit.SECONDS)) {
            assertThat(hold.isValid()).as("the hold returned after 'a' was lost during the wait").isTrue();
            assertThat(hold.state()).isEqualTo(Hold.State.HELD);
            hold.checkValid();
            assertThat(heldLocks("")).as("locks held by the hold").containsExactlyInAnyOrder("a", "b");
            assertThat(hold.fencingToken("b")).isGreaterThan(other.fencingToken());
        }
        assertThat(eventually(() -> store.leftovers().isEmpty())).as("left in the store: %s", store.leftovers()).isTrue();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWaitLongerThanAnUnrenewedLeaseTakesThePartsAgainNotReturnedLost() throws Exception {
        Duration lease = Duration.ofSeconds(1);
        Hold other = holdBElsewhere();
        CompletableFuture<MultiHold> f = client().multiLock(List.of("a", "b"), lease, false).acquireAsync(Duration.ofSeconds(20));
        assertThat(eventually(() -> store.holder("a").isPresent())).as("the wait took 'a'").isTrue();
        Thread.sleep(lease.toMillis() + 300); // 'a' is past its lease, never renewed
        other.close();

        try (MultiHold hold = f.get(10, TimeUnit.SECONDS)) {
            assertThat(hold.isValid()).as("the hold returned after a wait past the lease").isTrue();
            assertThat(hold.state()).isEqualTo(Hold.State.HELD);
            assertThat(heldLocks("")).as("locks held by the hold").containsExactlyInAnyOrder("a", "b");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aPartLostWhenTheDeadlineHasPassedTimesOutHoldingNothing() throws Exception {
        Duration lease = Duration.ofMillis(500);
        Hold other = holdBElsewhere();
        CompletableFuture<MultiHold> f = client().multiLock(List.of("a", "b"), lease, false).acquireAsync(Duration.ofMillis(900));
        assertThat(eventually(() -> store.holder("a").isPresent())).as("the wait took 'a'").isTrue();
        Thread.sleep(700); // 'a' is past its lease; the deadline is near
        other.close(); // 'b' comes just before the deadline, or the wait for it times out

        try {
            MultiHold hold = f.get(10, TimeUnit.SECONDS);
            assertThat(hold.isValid()).as("a hold returned is valid on every part").isTrue(); // taken again in time
            hold.close();
        } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(LockTimeoutException.class).hasMessageContaining("none of its locks is held");
        }
        assertThat(eventually(() -> heldLocks("").isEmpty())).as("locks held: %s", heldLocks("")).isTrue();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void givingUpReleasesOffTheThreadThatCompletedTheFuture() throws Exception {
        Hold other = holdBElsewhere();
        ScriptedStore view = view();
        MultiLock lock = client(view).multiLock("a", "b");
        CompletableFuture<MultiHold> cancelled = lock.acquireAsync(Duration.ofHours(1));
        assertThat(eventually(() -> view.attemptedNames.contains("b") && store.holder("a").isPresent()))
                .as("the wait took 'a' and waits for 'b'").isTrue();
        view.releasingThreads.clear();
        cancelled.cancel(false);
        assertThat(eventually(() -> store.holder("a").isEmpty())).as("'a' given back").isTrue();
        assertThat(view.releasingThreads).as("threads that gave back after a cancel").hasSize(1)
                .doesNotContain(Thread.currentThread().getName());

        view.attemptedNames.clear();
        CompletableFuture<MultiHold> timedOut = lock.acquireAsync(Duration.ofHours(1));
        assertThat(eventually(() -> view.attemptedNames.contains("b") && store.holder("a").isPresent()))
                .as("the wait took 'a' and waits for 'b'").isTrue();
        view.releasingThreads.clear();
        timedOut.orTimeout(100, TimeUnit.MILLISECONDS); // completed by the JDK's one delayer thread
        assertThat(eventually(() -> store.holder("a").isEmpty())).as("'a' given back").isTrue();
        assertThat(view.releasingThreads).as("threads that gave back after orTimeout").hasSize(1)
                .noneMatch(name -> name.startsWith("CompletableFutureDelayScheduler"));
        other.close();
    }
}
