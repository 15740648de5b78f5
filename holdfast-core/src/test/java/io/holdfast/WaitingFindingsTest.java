package io.holdfast;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One test per waiting and hold-lifecycle defect of the core review (../shared/reviews/core-jdbc-redis.md,
 * findings 1, 7, 8, 11, 12, 14, 17, 18), against the in-memory store. Each failed on the core before its
 * rebuild into explicit state machines.
 */
class WaitingFindingsTest {
    private final List<Holdfast> clients = new ArrayList<>();

    private Holdfast client(InMemoryStore store) {
        Holdfast c = store.client();
        clients.add(c);
        return c;
    }

    @AfterEach
    void close() {
        clients.forEach(Holdfast::close);
    }

    /** Finding 1: a wait shorter than one store call returns, every time, and leaves the name usable. */
    @ParameterizedTest(name = "queueing store {0}")
    @CsvSource({"false", "true"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void waitsShorterThanARoundTripReturnAndLeaveTheNameUsable(boolean queues) throws Exception {
        InMemoryStore store = new InMemoryStore(queues, true);
        store.latencyMicros = 2_000;
        Holdfast holder = client(store);
        Holdfast waiter = client(store);
        Hold held = holder.lock("job").acquire(Duration.ofSeconds(5));
        for (int i = 0; i < 150; i++) {
            CompletableFuture<Optional<Hold>> call = CompletableFuture.supplyAsync(() -> {
                try {
                    return waiter.lock("job").tryAcquire(Duration.ofNanos(1000));
                } catch (InterruptedException e) {
                    throw new CompletionException(e);
                }
            });
            assertThat(call.get(5, TimeUnit.SECONDS)).as("tryAcquire(1 µs) #%d", i).isEmpty();
            CompletableFuture<Hold> async = waiter.lock("job").acquireAsync(Duration.ZERO);
            assertThatThrownBy(() -> async.get(5, TimeUnit.SECONDS)).as("acquireAsync(ZERO) #%d", i)
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LockTimeoutException.class);
        }
        CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(held::close);
        Optional<Hold> later = waiter.lock("job").tryAcquire(Duration.ofSeconds(5));
        assertThat(later).as("a 5 s wait on a lock freed after 300 ms").isPresent();
        later.get().close();
    }

    /** Finding 7: a caller's orTimeout (or any completion of its own) ends the wait; no zombie takes the lock. */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aCallersOwnTimeoutEndsTheWaitAndNoZombieTakesTheLock() throws Exception {
        InMemoryStore store = new InMemoryStore(false, false);
        Holdfast holder = client(store);
        Holdfast waiter = client(store);
        Hold held = holder.lock("job").acquire(Duration.ofSeconds(5));
        CompletableFuture<Hold> f = waiter.lock("job").acquireAsync(Duration.ofHours(1)).orTimeout(200, TimeUnit.MILLISECONDS);
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(TimeoutException.class);
        CompletableFuture<Hold> g = waiter.lock("job").acquireAsync(Duration.ofHours(1));
        g.complete(null);
        Thread.sleep(300); // let an attempt already in flight return
        int attemptsAfterGivingUp = store.attempts.get();
        Thread.sleep(1_000);
        assertThat(store.attempts.get()).as("store attempts in the second after both callers gave up").isEqualTo(attemptsAfterGivingUp);
        held.close();
        Thread.sleep(500);
        assertThat(store.holder("job")).as("holder after release: no zombie took it").isEmpty();
    }

    /** Finding 8: where the store keeps no order, a newcomer of the same client never barges past the queued head. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aNewcomerDoesNotBargePastTheClientsQueuedWaiter() throws Exception {
        InMemoryStore store = new InMemoryStore(false, false);
        store.latencyMicros = 300;
        Holdfast client = client(store);
        DistributedLock lock = client.lock("job");
        for (int round = 0; round < 20; round++) {
            List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
            Hold a = lock.acquire(Duration.ofSeconds(5));
            CompletableFuture<Void> head = lock.acquireAsync(Duration.ofSeconds(10)).thenAccept(h -> {
                order.add("queued head");
                h.close();
            });
            awaitQueued(client, "job");
            a.close();
            try (Hold newcomer = lock.acquire(Duration.ofSeconds(10))) {
                order.add("newcomer");
            }
            head.get(10, TimeUnit.SECONDS);
            assertThat(order).as("round %d: who got the lock first", round).containsExactly("queued head", "newcomer");
        }
    }

    /** Finding 11: an Error thrown by a store's renew neither stops renewal nor loses the hold. */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void anErrorFromRenewDoesNotStopRenewal() throws Exception {
        InMemoryStore store = new InMemoryStore(false, false);
        Holdfast client = client(store);
        store.renewThrowsOnce.set(new NoClassDefFoundError("injected"));
        Hold hold = client.lock("job", Duration.ofMillis(900), true).acquire(Duration.ofSeconds(5));
        Thread.sleep(3_000);
        assertThat(hold.isValid()).as("hold after 3 s with a 900 ms lease, the first renewal having thrown an Error").isTrue();
        assertThat(store.holder("job")).isPresent();
        hold.close();
    }

    /**
     * An Error thrown by the store during a wait's call on the I/O pool (a missing class of a driver, say) ends the
     * wait as a failure; before, the wait stayed in CALLING and its future never completed, deadline or not.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void anErrorFromAStoreCallDuringAWaitEndsTheWait() throws Exception {
        for (boolean queues : new boolean[] {false, true}) {
            InMemoryStore store = new InMemoryStore(queues, true);
            Holdfast holder = client(store);
            Hold held = holder.lock("job").acquire(Duration.ofSeconds(5));
            Holdfast waiter = client(store);
            CompletableFuture<Hold> wait = waiter.lock("job").acquireAsync(Duration.ofSeconds(2));
            while (store.attempts.get() < 2) {
                Thread.sleep(5); // the waiter's first attempt was refused
            }
            store.acquireThrowsOnce.set(new NoClassDefFoundError("injected"));
            held.close(); // wakes the waiter, whose next attempt throws the Error
            assertThatThrownBy(() -> wait.get(10, TimeUnit.SECONDS))
                    .as("the wait, queueing=%s", queues)
                    .isInstanceOf(ExecutionException.class)
                    .hasRootCauseInstanceOf(NoClassDefFoundError.class);
            assertThat(waiter.lock("job").tryAcquire(Duration.ofSeconds(2))).as("the name afterwards").isPresent();
        }
    }

    /** Finding 12: a timed wait whose first attempt is in flight when the client closes returns promptly. */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWaitJoiningAfterTheClientClosedEnds() throws Exception {
        for (boolean queues : new boolean[] {false, true}) {
            InMemoryStore store = new InMemoryStore(queues, false);
            Holdfast holder = client(store);
            holder.lock("job").acquire(Duration.ofSeconds(5));
            store.latencyMicros = 400_000;
            Holdfast waiter = store.client();
            CompletableFuture<Object> call = CompletableFuture.supplyAsync(() -> {
                try {
                    return waiter.lock("job").tryAcquire(Duration.ofSeconds(2));
                } catch (Exception e) {
                    return e;
                }
            });
            Thread.sleep(100); // the first attempt is now in flight
            waiter.close();
            Object outcome = call.get(5, TimeUnit.SECONDS);
            assertThat(outcome).as("outcome of the wait, queueing=%s", queues).isInstanceOf(IllegalStateException.class);
            store.latencyMicros = 0;
        }
    }

    /**
     * Finding 14: a re-entry that passed its hold's checks just before the last close() must not get a
     * valid hold while the lock is being freed (reached here at the lease, where that race lands).
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void reenterRacingTheLastCloseFails() throws Exception {
        InMemoryStore store = new InMemoryStore(false, false);
        Holdfast client = client(store);
        Hold hold = client.lock("job").acquire(Duration.ofSeconds(5));
        Lease lease = ((LeasedHold) hold).lease();
        CountDownLatch releasing = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        store.onRelease = name -> {
            releasing.countDown();
            try {
                proceed.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        CompletableFuture<Void> closing = CompletableFuture.runAsync(hold::close);
        assertThat(releasing.await(5, TimeUnit.SECONDS)).isTrue();
        Object outcome;
        try {
            Hold late = lease.reenter();
            outcome = late.isValid() ? "a valid hold on a lock being released" : "an invalid hold";
        } catch (RuntimeException e) {
            outcome = e;
        }
        proceed.countDown();
        closing.get(5, TimeUnit.SECONDS);
        assertThat(outcome).isInstanceOf(IllegalStateException.class);
        assertThat(hold.isValid()).isFalse();
    }

    /** Finding 17: an interrupt racing the wait's end surfaces as InterruptedException, and holds nothing. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anInterruptRacingTheEndOfAWaitIsReportedAsAnInterrupt() throws Exception {
        InMemoryStore store = new InMemoryStore(false, false);
        Holdfast holder = client(store);
        Holdfast waiter = client(store);
        Hold held = holder.lock("job").acquire(Duration.ofSeconds(5));
        for (int i = 0; i < 200; i++) {
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    outcome.set(waiter.lock("job").tryAcquire(Duration.ofMillis(2)));
                } catch (Throwable e) {
                    outcome.set(e);
                }
            });
            t.start();
            Thread.sleep(1, (i % 10) * 100_000); // around the moment the 2 ms wait times out
            t.interrupt();
            t.join(5_000);
            assertThat(t.isAlive()).isFalse();
            assertThat(outcome.get()).as("outcome #%d", i).satisfiesAnyOf(
                    o -> assertThat(o).isInstanceOf(InterruptedException.class),
                    o -> assertThat(o).isEqualTo(Optional.empty()));
        }
        held.close();
        assertThat(store.holder("job")).isEmpty();
    }

    /** Finding 18: Lock.lock() keeps its place (and owner) through interrupts, and restores the flag. */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void lockKeepsItsPlaceThroughInterrupts() throws Exception {
        InMemoryStore store = new InMemoryStore(true, true);
        Holdfast holder = client(store);
        Holdfast waiter = client(store);
        Hold held = holder.lock("job").acquire(Duration.ofSeconds(5));
        FencedLock lock = waiter.lock("job").asLock();
        AtomicReference<Boolean> flagAfter = new AtomicReference<>();
        Thread t = new Thread(() -> {
            lock.lock();
            flagAfter.set(Thread.currentThread().isInterrupted());
            lock.unlock();
        });
        int before = store.attemptOwners.size();
        t.start();
        Thread.sleep(200);
        for (int i = 0; i < 5; i++) {
            t.interrupt();
            Thread.sleep(50);
        }
        held.close();
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(flagAfter.get()).as("interrupt flag restored after lock()").isTrue();
        List<String> owners = store.attemptOwners.subList(before, store.attemptOwners.size());
        assertThat(new HashSet<>(owners)).as("owner ids the waiting lock() used").hasSize(1);
    }

    private static void awaitQueued(Holdfast client, String name) throws InterruptedException {
        HoldfastClient c = (HoldfastClient) client;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!c.hasWaiters(name)) {
            assertThat(System.nanoTime() - until).as("a waiter queued within 5 s").isNegative();
            Thread.sleep(1);
        }
    }
}
