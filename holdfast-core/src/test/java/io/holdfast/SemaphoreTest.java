package io.holdfast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link DistributedSemaphore} against the in-memory store: permits are ordinary locks behind a gate, never more
 * than N are held, tokens are the gate's, the gate keeps waiters in order, a lost permit loses the whole hold, a
 * dead holder's permits come back within the lease, and bad input is refused saying what is allowed.
 */
class SemaphoreTest extends PermitFixture {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void permitsAreLocksTakenBehindTheGateWhoseTokenTheHoldKeeps() throws Exception {
        ScriptedStore view = view();
        Holdfast client = client(view);
        DistributedSemaphore semaphore = client.semaphore("s", 3);
        assertThat(semaphore.permits()).isEqualTo(3);
        try (PermitHold hold = semaphore.acquire(2, Duration.ofSeconds(5))) {
            assertThat(view.attemptedNames.get(0)).as("the first store attempt").isEqualTo("s#gate");
            assertThat(heldLocks("s#")).as("locks of 's' held").hasSize(2).allMatch(n -> n.startsWith("s#permit-"));
            assertThat(hold.permits()).isEqualTo(2);
            assertThat(hold.name()).isEqualTo("s");
            assertThat(hold.isValid()).isTrue();
            try (Hold gate = client.lock("s#gate").tryAcquire().orElseThrow(() -> new AssertionError("the gate stayed held"))) {
                assertThat(gate.fencingToken()).as("the gate's next token").isEqualTo(hold.fencingToken() + 1);
            }
        }
        assertThat(heldLocks("s#")).as("locks of 's' held after close").isEmpty();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void neverMoreThanNPermitsAreHeldSeveralHoldersShareThemAndTokensFollowTheGate() throws Exception {
        store.latencyMicros = 200;
        int n = 3;
        List<DistributedSemaphore> semaphores = List.of(client().semaphore("s", n), client().semaphore("s", n),
                client().semaphore("s", n));
        Occupancy inside = new Occupancy();
        int rounds = 15;
        ExecutorService pool = Executors.newFixedThreadPool(2 * semaphores.size());
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 2 * semaphores.size(); t++) {
                DistributedSemaphore semaphore = semaphores.get(t % semaphores.size());
                workers.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < rounds; i++) {
                        int k = 1 + ThreadLocalRandom.current().nextInt(n);
                        long floor = inside.floor();
                        try (PermitHold hold = semaphore.acquire(k, Duration.ofSeconds(60))) {
                            inside.enter(k, hold.fencingToken(), floor);
                            if (k < n) {
                                inside.lingerForCompany(20);
                            }
                            Thread.sleep(1);
                            inside.leave(k);
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> worker : workers) {
                worker.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(inside.mostPermits()).as("permits held at once, at most").isLessThanOrEqualTo(n);
        assertThat(inside.mostHolders()).as("holders inside at once, at most: a semaphore is not a mutex").isGreaterThan(1);
        assertThat(inside.broken()).as("tokens of acquires begun after another holder came in").isEmpty();
        assertThat(inside.tokens()).as("tokens in entry order").hasSize(2 * semaphores.size() * rounds).doesNotHaveDuplicates();
        assertThat(heldLocks("s#")).as("locks of 's' held at the end").isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void tokensIncreaseWithEveryAcquisition() throws Exception {
        DistributedSemaphore a = client().semaphore("s", 4);
        DistributedSemaphore b = client().semaphore("s", 4);
        long last = 0;
        for (int i = 0; i < 8; i++) {
            try (PermitHold hold = (i % 2 == 0 ? a : b).acquire(1 + i % 4, Duration.ofSeconds(5))) {
                assertThat(hold.fencingToken()).as("token of acquisition %d", i).isGreaterThan(last);
                last = hold.fencingToken();
            }
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWaiterForPermitsHoldsTheGateSoNobodyOvertakesIt() throws Exception {
        DistributedSemaphore mine = client().semaphore("s", 2);
        PermitHold both = mine.acquire(2, Duration.ofSeconds(5));
        CompletableFuture<PermitHold> waiter = client().semaphore("s", 2).acquireAsync(1, Duration.ofSeconds(20));
        DistributedSemaphore late = client().semaphore("s", 2);
        assertThat(eventually(() -> store.holder("s#gate").isPresent())).as("the waiter holds the gate").isTrue();
        assertThat(late.tryAcquire(1)).as("tryAcquire(1) while a waiter is at the gate").isEmpty();
        assertThat(late.tryAcquire(1, Duration.ofMillis(200))).as("tryAcquire(1, 200ms) behind the waiter").isEmpty();

        both.close();
        PermitHold first = waiter.get(10, TimeUnit.SECONDS);
        // The waiter waited on both permits; the grant it did not need may still be on its way back to the store.
        assertThat(eventually(() -> heldLocks("s#permit-").size() == 1)).as("permits held once the waiter returned").isTrue();
        // A short wait, not tryAcquire(): a grant of the permit the waiter no longer needed can still land and go back
        // just after it returned (seen once under stress-ng).
        try (first; PermitHold second = late.tryAcquire(1, Duration.ofSeconds(5))
                .orElseThrow(() -> new AssertionError("the last permit was not taken"))) {
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(late.tryAcquire(1)).as("a third permit of two").isEmpty();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void downgradeKeepsOnePermitAndTheToken() throws Exception {
        DistributedSemaphore semaphore = client().semaphore("s", 3);
        PermitHold hold = semaphore.acquire(3, Duration.ofSeconds(5));
        long token = hold.fencingToken();
        hold.downgrade();
        assertThat(hold.permits()).isEqualTo(1);
        assertThat(hold.fencingToken()).isEqualTo(token);
        assertThat(hold.isValid()).isTrue();
        assertThat(heldLocks("s#permit-")).hasSize(1);
        PermitHold other = client().semaphore("s", 3).tryAcquire(2).orElseThrow(() -> new AssertionError("2 permits given back"));
        hold.downgrade(); // one permit: nothing to give back
        assertThat(hold.permits()).isEqualTo(1);
        other.close();
        hold.close();
        assertThatThrownBy(hold::downgrade).isInstanceOf(IllegalStateException.class).hasMessageContaining("released");
        assertThat(heldLocks("s#")).isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aLostPermitIsALossOfTheWholeHold() throws Exception {
        PermitHold hold = client().semaphore("s", 3, Duration.ofMillis(600), true).acquire(2, Duration.ofSeconds(5));
        List<String> held = heldLocks("s#permit-");
        List<String> told = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch lost = new CountDownLatch(1);
        hold.onLost((permit, reason) -> {
            told.add(permit.lockName());
            lost.countDown();
        });
        assertThat(store.forceRelease(held.get(0))).isTrue();

        assertThat(lost.await(10, TimeUnit.SECONDS)).as("told of the loss of %s", held.get(0)).isTrue();
        assertThat(told).containsExactly(held.get(0));
        assertThat(hold.isValid()).isFalse();
        assertThat(hold.state()).isEqualTo(Hold.State.LOST);
        assertThatThrownBy(hold::checkValid).isInstanceOf(LockLostException.class).hasMessageContaining(held.get(0));
        assertThatThrownBy(hold::downgrade).isInstanceOf(LockLostException.class);
        assertThatThrownBy(hold::close).isInstanceOf(LockLostException.class).hasMessageContaining("the other permits were released");
        assertThat(heldLocks("s#")).as("locks of 's' held after close").isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aDeadHoldersPermitsComeBackWithinTheLeaseAndItsHoldIsLost() throws Exception {
        ScriptedStore deadView = view();
        Duration lease = Duration.ofMillis(600);
        PermitHold dead = client(deadView).semaphore("s", 2, lease, true).acquire(2, Duration.ofSeconds(5));
        CountDownLatch lost = new CountDownLatch(1);
        dead.onLost((permit, reason) -> lost.countDown());
        deadView.cutOff = true; // no renewal gets through: as good as dead, to the store

        long start = System.nanoTime();
        try (PermitHold next = client().semaphore("s", 2, lease, true).acquire(2, Duration.ofSeconds(10))) {
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(waitedMs).as("ms until the dead holder's permits came back").isLessThan(lease.toMillis() + 2_000);
            assertThat(lost.getCount()).as("the dead holder was told of its loss first").isZero();
            assertThat(next.fencingToken()).isGreaterThan(dead.fencingToken());
        }
    }

    @Test
    void badInputIsRefusedSayingWhatIsAllowed() {
        Holdfast client = client();
        int most = DistributedSemaphore.MAX_PERMITS;
        assertThatThrownBy(() -> client.semaphore("s", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot have 0 permits").hasMessageContaining("allowed: 1 to " + most);
        assertThatThrownBy(() -> client.semaphore("s", most + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed: 1 to " + most);
        assertThatThrownBy(() -> client.semaphore("a b", 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock name 'a b'").hasMessageContaining("allowed");
        assertThatThrownBy(() -> client.semaphore(null, 2)).isInstanceOf(IllegalArgumentException.class);
        String longest = "n".repeat(DistributedSemaphore.MAX_NAME_LENGTH);
        assertThat(client.semaphore(longest, most).name()).isEqualTo(longest);
        assertThatThrownBy(() -> client.semaphore(longest + "n", 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining((DistributedSemaphore.MAX_NAME_LENGTH + 1) + " characters long")
                .hasMessageContaining("allowed: a lock name of 1 to " + DistributedSemaphore.MAX_NAME_LENGTH);
        assertThatThrownBy(() -> DistributedSemaphore.requireValid("s", most + 1)).as("the same check without a client")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("semaphore 's' cannot have 65 permits; allowed: 1 to " + most);
        assertThatThrownBy(() -> DistributedSemaphore.requireValid(longest + "n", 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed: a lock name of 1 to " + DistributedSemaphore.MAX_NAME_LENGTH);
        DistributedSemaphore.requireValid(longest, most);
        assertThatThrownBy(() -> client.semaphore("s", 2, Duration.ZERO, true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed");
        DistributedSemaphore semaphore = client.semaphore("s", 2);
        for (int k : new int[] {0, 3, -1}) {
            assertThatThrownBy(() -> semaphore.tryAcquire(k)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot take " + k + " permits of semaphore 's', which has 2; allowed: 1 to 2");
            assertThatThrownBy(() -> semaphore.acquire(k, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> semaphore.acquireAsync(k, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> semaphore.acquire(1, Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aHoldReleasedByTheClientsCloseSaysReleased() throws Exception {
        Holdfast closing = client();
        PermitHold hold = closing.semaphore("s", 2).acquire(2, Duration.ofSeconds(5));
        MultiHold multi = closing.multiLock("a", "b").acquire(Duration.ofSeconds(5));
        closing.close();
        assertThat(heldLocks("s#")).as("locks of 's' held after the client's close").isEmpty();
        assertThat(hold.state()).as("the permit hold after the client's close").isEqualTo(Hold.State.RELEASED);
        assertThat(hold.isValid()).isFalse();
        assertThat(hold.lossReason()).isNull();
        assertThat(multi.state()).as("the multi-hold after the client's close").isEqualTo(Hold.State.RELEASED);
        hold.close(); // released already: nothing to do, nothing lost
        multi.close();
        assertThat(hold.state()).isEqualTo(Hold.State.RELEASED);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aZeroWaitTakesAFreePermitWhereverItsFirstTryLands() throws Exception {
        Hold zero = client().lock("s#permit-0").acquire(Duration.ofSeconds(5));
        DistributedSemaphore semaphore = client().semaphore("s", 3);
        for (int i = 0; i < 30; i++) {
            semaphore.acquireAsync(1, Duration.ZERO).get(10, TimeUnit.SECONDS).close();
            semaphore.acquire(1, Duration.ofNanos(1)).close();
        }
        zero.close();
    }
}
