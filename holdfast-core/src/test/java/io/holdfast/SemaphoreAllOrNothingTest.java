package io.holdfast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A semaphore's acquire holds every permit asked for or none, on every way a wait ends: the deadline (at the gate
 * or at the permits), an interrupt, a cancel, a store error or outage. With 3 permits and 2 held by another client,
 * an acquire of 2 takes the free one and waits for another; whatever ends that wait, it gives back the one and the
 * gate, and no wait left behind takes a permit later.
 */
class SemaphoreAllOrNothingTest extends PermitFixture {

    private PermitHold holdTwoElsewhere() throws InterruptedException {
        return client().semaphore("s", 3).acquire(2, Duration.ofSeconds(5));
    }

    @ParameterizedTest(name = "queueing store {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWaitThatRunsOutHoldsNothing(boolean queues) throws Exception {
        InMemoryStore shared = new InMemoryStore(queues, true);
        Holdfast other = client(new ScriptedStore(shared));
        PermitHold two = other.semaphore("s", 3).acquire(2, Duration.ofSeconds(5));
        DistributedSemaphore semaphore = client(new ScriptedStore(shared)).semaphore("s", 3);

        assertThatThrownBy(() -> semaphore.acquire(2, Duration.ofMillis(300))).isInstanceOf(LockTimeoutException.class)
                .hasMessageContaining("acquiring 2 permits of semaphore 's' timed out after 300ms")
                .hasMessageContaining("1 of 2 permits were free in time; none is held");
        assertThat(shared.leftovers().stream().filter(line -> line.contains(" held by ")))
                .as("what the store holds right after the time-out: the other client's two permits").hasSize(2)
                .allMatch(line -> line.startsWith("s#permit-"));
        // An abandoned permit wait leaves its queue entry (on a queueing store) a moment longer: the core takes it out
        // in the background once the wait's future is cancelled (seen under stress-ng: still there right after).
        assertThat(eventually(() -> shared.leftovers().size() == 2)).as("left in the store: %s", shared.leftovers()).isTrue();
        assertThat(semaphore.tryAcquire(2, Duration.ofMillis(300))).isEmpty();
        two.close();
        try (PermitHold hold = semaphore.acquire(3, Duration.ofSeconds(5))) {
            assertThat(hold.fencingToken()).isGreaterThan(two.fencingToken());
        }
        assertThat(eventually(() -> shared.leftovers().isEmpty())).as("left in the store: %s", shared.leftovers()).isTrue();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWaitThatRunsOutAtTheGateSaysSo() throws Exception {
        PermitHold two = holdTwoElsewhere();
        CompletableFuture<PermitHold> atTheGate = client().semaphore("s", 3).acquireAsync(3, Duration.ofSeconds(20));
        assertThat(eventually(() -> store.holder("s#gate").isPresent())).isTrue();
        assertThatThrownBy(() -> client().semaphore("s", 3).acquire(1, Duration.ofMillis(200)))
                .isInstanceOf(LockTimeoutException.class).hasMessageContaining("'s#gate' stayed held");
        atTheGate.cancel(false);
        two.close();
        assertThat(eventually(() -> heldLocks("s#").isEmpty())).as("locks of 's' held: %s", heldLocks("s#")).isTrue();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void anInterruptedWaitHoldsNothing() throws Exception {
        PermitHold two = holdTwoElsewhere();
        ScriptedStore view = view();
        DistributedSemaphore semaphore = client(view).semaphore("s", 3);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                semaphore.acquire(2).close();
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        waiter.start();
        assertThat(eventually(() -> heldLocks("s#permit-").size() == 3)).as("the waiter took the free permit").isTrue();
        view.releaseDelayMillis = 200; // a slow give-back: the interrupted acquire throws only once it is done
        waiter.interrupt();
        waiter.join(10_000);
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(heldLocks("s#")).as("locks of 's' held once the interrupted acquire has thrown").hasSize(2);
        two.close();
        Thread.sleep(300); // a wait left behind would take a permit now
        assertThat(heldLocks("s#")).as("locks of 's' held after the other's release: no wait left behind").isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void cancellingAnAsyncWaitHoldsNothing() throws Exception {
        PermitHold two = holdTwoElsewhere();
        CompletableFuture<PermitHold> f = client().semaphore("s", 3).acquireAsync(2, Duration.ofHours(1));
        assertThat(eventually(() -> heldLocks("s#permit-").size() == 3)).as("the wait took the free permit").isTrue();
        f.cancel(false);
        assertThat(eventually(() -> heldLocks("s#").size() == 2)).as("the gate and the permit given back, on the I/O pool").isTrue();
        two.close();
        Thread.sleep(300);
        assertThat(heldLocks("s#")).as("locks of 's' held after the other's release: no wait left behind").isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aStoreErrorOnAPermitHoldsNothingAndIsRethrown() throws Exception {
        ScriptedStore view = view();
        DistributedSemaphore semaphore = client(view).semaphore("s", 3);
        view.failAttempt = name -> name.equals("s#permit-1") ? new IllegalStateException("injected failure on permit 1") : null;
        assertThatThrownBy(() -> semaphore.acquire(3, Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("injected failure");
        assertThat(heldLocks("s#")).as("after acquire(3, 5s) failed").isEmpty();
        assertThatThrownBy(() -> semaphore.tryAcquire(3)).isInstanceOf(IllegalStateException.class).hasMessageContaining("injected");
        assertThat(heldLocks("s#")).as("after tryAcquire(3) failed").isEmpty();

        view.failAttempt = name -> name.startsWith("s#permit-") ? new StoreUnavailableException("memory", "here", "injected outage", null) : null;
        assertThatThrownBy(() -> semaphore.tryAcquire(1)).as("tryAcquire(1) with the permits unreachable")
                .isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> semaphore.acquire(2, Duration.ofMillis(300))).as("acquire(2, 300ms) with the permits unreachable")
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(heldLocks("s#")).as("after the outage").isEmpty();

        view.failAttempt = name -> null;
        view.cutOff = true;
        assertThatThrownBy(() -> semaphore.acquire(1, Duration.ofMillis(300))).as("acquire(1, 300ms) with the store unreachable")
                .isInstanceOf(StoreUnavailableException.class);
        view.cutOff = false;
        semaphore.acquire(3, Duration.ofSeconds(5)).close();
        assertThat(eventually(() -> store.leftovers().isEmpty())).as("left in the store: %s", store.leftovers()).isTrue();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aClosedClientEndsTheWaitAndHoldsNothing() throws Exception {
        PermitHold two = holdTwoElsewhere();
        Holdfast closing = client();
        CompletableFuture<PermitHold> f = closing.semaphore("s", 3).acquireAsync(2, Duration.ofHours(1));
        assertThat(eventually(() -> heldLocks("s#permit-").size() == 3)).isTrue();
        closing.close();
        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(heldLocks("s#")).hasSize(2);
        two.close();
        assertThatThrownBy(() -> closing.semaphore("s", 3).acquireAsync(1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aPermitForceReleasedWhileWaitingForAnotherIsTakenAgainNotReturnedLost() throws Exception {
        PermitHold other = client().semaphore("s", 2).acquire(1, Duration.ofSeconds(5));
        String othersPermit = heldLocks("s#permit-").get(0);
        RecordingListener events = new RecordingListener();
        DistributedSemaphore semaphore = client(view(), events).semaphore("s", 2, Duration.ofMillis(600), true);
        CompletableFuture<PermitHold> f = semaphore.acquireAsync(2, Duration.ofSeconds(20));
        assertThat(eventually(() -> heldLocks("s#permit-").size() == 2)).as("the waiter took the free permit").isTrue();
        String taken = heldLocks("s#permit-").stream().filter(n -> !n.equals(othersPermit)).findFirst().orElseThrow();
        assertThat(store.forceRelease(taken)).isTrue();
        assertThat(eventually(() -> events.count(RecordingListener.Kind.LOST) == 1)).as("the waiter's renewal found %s lost", taken).isTrue();
        other.close();

        try (PermitHold hold = f.get(10, TimeUnit.SECONDS)) {
            assertThat(hold.isValid()).as("the hold returned after a permit was lost during the wait").isTrue();
            assertThat(hold.state()).isEqualTo(Hold.State.HELD);
            hold.checkValid();
            assertThat(hold.permits()).isEqualTo(2);
            assertThat(heldLocks("s#permit-")).as("permits held by the hold").hasSize(2);
            assertThat(hold.fencingToken()).isGreaterThan(other.fencingToken());
        }
        assertThat(eventually(() -> store.leftovers().isEmpty())).as("left in the store: %s", store.leftovers()).isTrue();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWaitLongerThanAnUnrenewedLeaseTakesThePermitsAgainNotReturnedLost() throws Exception {
        Duration lease = Duration.ofSeconds(1);
        PermitHold other = client().semaphore("s", 2).acquire(1, Duration.ofSeconds(5));
        CompletableFuture<PermitHold> f = client().semaphore("s", 2, lease, false).acquireAsync(2, Duration.ofSeconds(20));
        assertThat(eventually(() -> heldLocks("s#permit-").size() == 2)).as("the waiter took the free permit").isTrue();
        Thread.sleep(lease.toMillis() + 300); // the permit taken first is past its lease, never renewed
        other.close();

        try (PermitHold hold = f.get(10, TimeUnit.SECONDS)) {
            assertThat(hold.isValid()).as("the hold returned after a wait past the lease").isTrue();
            assertThat(hold.state()).isEqualTo(Hold.State.HELD);
            assertThat(heldLocks("s#permit-")).as("permits held by the hold").hasSize(2);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void givingUpReleasesOffTheThreadThatCompletedTheFuture() throws Exception {
        PermitHold two = holdTwoElsewhere();
        ScriptedStore view = view();
        DistributedSemaphore semaphore = client(view).semaphore("s", 3);
        CompletableFuture<PermitHold> cancelled = semaphore.acquireAsync(2, Duration.ofHours(1));
        assertThat(eventually(() -> heldLocks("s#permit-").size() == 3)).as("the wait took the free permit").isTrue();
        view.releasingThreads.clear();
        cancelled.cancel(false);
        assertThat(eventually(() -> heldLocks("s#").size() == 2)).as("the gate and the permit given back").isTrue();
        assertThat(view.releasingThreads).as("threads that gave back after a cancel").hasSize(2)
                .doesNotContain(Thread.currentThread().getName());

        CompletableFuture<PermitHold> timedOut = semaphore.acquireAsync(2, Duration.ofHours(1));
        assertThat(eventually(() -> heldLocks("s#permit-").size() == 3)).as("the wait took the free permit").isTrue();
        view.releasingThreads.clear();
        timedOut.orTimeout(100, TimeUnit.MILLISECONDS); // completed by the JDK's one delayer thread
        assertThat(eventually(() -> heldLocks("s#").size() == 2)).as("the gate and the permit given back").isTrue();
        assertThat(view.releasingThreads).as("threads that gave back after orTimeout").hasSize(2)
                .noneMatch(name -> name.startsWith("CompletableFutureDelayScheduler"));
        two.close();
    }
}
