package io.holdfast.testkit;

import io.holdfast.DistributedLock;
import io.holdfast.FencedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import io.holdfast.LockTimeoutException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.LockStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;

/**
 * The contract of DESIGN.md, as tests every backend runs against a real store. A backend's test class
 * extends this suite and says where its store is ({@link #uri()}), where it is not
 * ({@link #unreachableUri()}) and how to cut one client off from it ({@link #outage()}).
 *
 * <p>Every test uses lock names of its own, opens its own clients and closes them afterwards, so tests
 * are independent of each other and of their order. All waits are bounded, and every test has a
 * {@link Timeout}. Time limits are generous upper bounds on correctness, never claims about speed.
 */
public abstract class LockConformanceSuite extends ErrorAndAdminConformance {
    // ---------------------------------------------------------------------------------------------
    // 1. Exclusion

    /**
     * Exclusion: eight clients (each its own connection, like separate processes) doing read-sleep-write
     * on a plain counter under the lock, 25 times each, end with the exact count; never two inside at once,
     * and tokens increase in the order of the critical sections.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    public void exclusionKeepsANonAtomicCounterExactAcrossEightClients() throws Exception {
        String name = name("exclusion");
        int clients = 8;
        int rounds = 25;
        int[] counter = {0}; // deliberately plain: only the lock keeps read-sleep-write exact
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        List<Long> tokensInOrder = Collections.synchronizedList(new ArrayList<>());
        List<Holdfast> holdfasts = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            holdfasts.add(client());
        }
        ExecutorService threads = executor(clients);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (Holdfast holdfast : holdfasts) {
            workers.add(threads.submit(() -> {
                start.await();
                DistributedLock lock = holdfast.lock(name);
                for (int round = 0; round < rounds; round++) {
                    try (Hold hold = lock.acquire(Duration.ofSeconds(60))) {
                        // The gauge's read-modify-writes also order the counter's accesses between threads,
                        // so a wrong count can only come from two holders at once.
                        int now = inside.incrementAndGet();
                        mostInside.accumulateAndGet(now, Math::max);
                        int read = counter[0];
                        tokensInOrder.add(hold.fencingToken());
                        Thread.sleep(1);
                        counter[0] = read + 1;
                        inside.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> worker : workers) {
            worker.get(280, TimeUnit.SECONDS);
        }
        assertThat(mostInside.get()).as("holders in the critical section at once, at most").isEqualTo(1);
        assertThat(counter[0]).as("counter after %d increments under the lock", clients * rounds).isEqualTo(clients * rounds);
        assertThat(tokensInOrder).hasSize(clients * rounds);
        assertStrictlyIncreasing(tokensInOrder);
    }

    // ---------------------------------------------------------------------------------------------
    // 3 and 5. Fencing tokens, re-entry

    /**
     * Fencing and re-entry: tokens strictly increase across alternating holders; {@link Hold#reenter()} and a
     * second {@link FencedLock#lock()} keep the token; only the last of the counted holds frees the lock.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void fencingTokensIncreaseAcrossHoldersAndStayTheSameOnReentry() throws Exception {
        String name = name("fencing");
        DistributedLock a = client().lock(name);
        DistributedLock b = client().lock(name);

        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            try (Hold hold = (i % 2 == 0 ? a : b).acquire(SOON)) {
                tokens.add(hold.fencingToken());
            }
        }
        assertStrictlyIncreasing(tokens);
        long last = tokens.get(tokens.size() - 1);

        Hold outer = a.acquire(SOON);
        assertThat(outer.fencingToken()).isGreaterThan(last);
        Hold inner = outer.reenter();
        assertThat(inner.fencingToken()).as("re-entered token").isEqualTo(outer.fencingToken());
        inner.close();
        assertThat(b.tryAcquire()).as("another client's tryAcquire after closing only the inner hold").isEmpty();
        assertThat(outer.isValid()).isTrue();
        outer.close();
        long afterOuter;
        try (Hold other = b.tryAcquire().orElseThrow(() -> new AssertionError("closing the last hold did not free the lock"))) {
            assertThat(other.fencingToken()).isGreaterThan(outer.fencingToken());
            afterOuter = other.fencingToken();
        }

        FencedLock view = a.asLock();
        view.lock();
        long viewToken = view.fencingToken();
        assertThat(viewToken).isGreaterThan(afterOuter);
        view.lock();
        assertThat(view.fencingToken()).as("token after the thread locked again").isEqualTo(viewToken);
        assertThat(view.hold().fencingToken()).isEqualTo(viewToken);
        view.unlock();
        assertThat(b.tryAcquire()).as("another client's tryAcquire after one of two unlocks").isEmpty();
        view.unlock();
        try (Hold other = b.tryAcquire().orElseThrow(() -> new AssertionError("the last unlock did not free the lock"))) {
            assertThat(other.fencingToken()).isGreaterThan(viewToken);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // 4. Ownership

    /**
     * Ownership: a hold closes from any thread; the thread-bound view refuses a foreign unlock with
     * {@link IllegalMonitorStateException}; two threads sharing one handle exclude each other.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void aHoldBelongsToItsHandleNotToAThread() throws Exception {
        String name = name("ownership");
        Holdfast owner = client();
        DistributedLock other = client().lock(name);
        ExecutorService elsewhere = executor(1);

        Hold hold = owner.lock(name).acquire(SOON);
        elsewhere.submit(hold::close).get(30, TimeUnit.SECONDS);
        assertThat(hold.state()).as("state after a close from another thread").isEqualTo(Hold.State.RELEASED);
        try (Hold next = other.tryAcquire().orElseThrow(() -> new AssertionError("a close from another thread did not free the lock"))) {
            assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
        }

        FencedLock view = owner.lock(name).asLock();
        view.lock();
        Throwable foreignUnlock = elsewhere.submit(() -> catchThrowable(view::unlock)).get(30, TimeUnit.SECONDS);
        assertThat(foreignUnlock).as("unlock() from a thread that did not lock")
                .isInstanceOf(IllegalMonitorStateException.class);
        assertThat(other.tryAcquire()).as("tryAcquire after a refused foreign unlock").isEmpty();
        view.unlock();
        other.tryAcquire().orElseThrow(() -> new AssertionError("the owner's unlock did not free the lock")).close();

        DistributedLock shared = owner.lock(name);
        Hold first = shared.acquire(SOON);
        assertThat(elsewhere.submit(() -> shared.tryAcquire()).get(30, TimeUnit.SECONDS))
                .as("a second thread's tryAcquire on the same handle").isEmpty();
        assertThat(shared.tryAcquire()).as("the same thread's second tryAcquire on the same handle").isEmpty();
        Future<Hold> waiter = elsewhere.submit(() -> shared.acquire(Duration.ofSeconds(60)));
        Thread.sleep(300);
        assertThat(waiter.isDone()).as("the second thread's acquire finished while the first hold was open").isFalse();
        first.close();
        Hold second = waiter.get(60, TimeUnit.SECONDS);
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        second.close();
        other.tryAcquire().orElseThrow(() -> new AssertionError("the lock stayed held after both holds closed")).close();
    }

    // ---------------------------------------------------------------------------------------------
    // 6. Waiting

    /**
     * Waiting: a blocked acquire throws {@link InterruptedException} when interrupted and leaves nothing held.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void anInterruptedWaiterThrowsAndHoldsNothing() throws Exception {
        String name = name("interrupt");
        Hold holding = client().lock(name).acquire(SOON);
        DistributedLock waiting = client().lock(name);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            started.countDown();
            try {
                Hold unexpected = waiting.acquire(Duration.ofSeconds(30));
                outcome.set(new AssertionError("acquire returned a hold (token " + unexpected.fencingToken() + ") on a held lock"));
                unexpected.close();
            } catch (Throwable t) {
                outcome.set(t);
            }
        }, "conformance-interrupted-waiter");
        waiter.setDaemon(true);
        waiter.start();
        started.await();
        awaitWaiting(waiter);
        Thread.sleep(200); // inside the wait, past the first attempt

        waiter.interrupt();
        waiter.join(10_000);
        assertThat(waiter.isAlive()).as("waiter still blocked 10s after its interrupt").isFalse();
        assertThat(outcome.get()).as("what the interrupted acquire threw").isInstanceOf(InterruptedException.class);

        holding.close();
        DistributedLock third = client().lock(name);
        try (Hold next = third.tryAcquire(Duration.ofSeconds(5))
                .orElseThrow(() -> new AssertionError("the lock was not free after its holder released it; did the interrupted waiter take it?"))) {
            assertThat(next.fencingToken()).isGreaterThan(holding.fencingToken());
        }
    }

    /**
     * Waiting: a timed wait on a held lock gives up no sooner than asked, {@code acquire} then throws
     * {@link LockTimeoutException}, and a long wait is served when the holder releases.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void timedWaitsAreHonoured() throws Exception {
        String name = name("timed");
        Hold holding = client().lock(name).acquire(SOON);
        DistributedLock waiting = client().lock(name);

        long start = System.nanoTime();
        Optional<Hold> none = waiting.tryAcquire(Duration.ofMillis(500));
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(none).as("tryAcquire(500ms) on a held lock").isEmpty();
        assertThat(waitedMs).as("ms tryAcquire(500ms) waited before giving up").isGreaterThanOrEqualTo(500);

        start = System.nanoTime();
        assertThatThrownBy(() -> waiting.acquire(Duration.ofMillis(500))).isInstanceOf(LockTimeoutException.class)
                .hasMessageContaining(name);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms acquire(500ms) waited")
                .isGreaterThanOrEqualTo(500);

        ExecutorService elsewhere = executor(1);
        Future<Hold> patient = elsewhere.submit(() -> waiting.acquire(Duration.ofSeconds(60)));
        Thread.sleep(500);
        assertThat(patient.isDone()).as("a long wait ended while the lock was held").isFalse();
        holding.close();
        try (Hold got = patient.get(60, TimeUnit.SECONDS)) {
            assertThat(got.fencingToken()).isGreaterThan(holding.fencingToken());
            assertThat(got.isValid()).isTrue();
        }
    }

    /**
     * Waiting: async acquires complete on a free lock, time out on a held one, and a cancelled one holds nothing.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void asyncAcquiresCompleteTimeOutAndCancelCleanly() throws Exception {
        String name = name("async");
        Holdfast first = client();
        DistributedLock waiting = client().lock(name);

        Hold fromFuture = first.lock(name).acquireAsync(SOON).get(30, TimeUnit.SECONDS);
        assertThat(fromFuture.isValid()).isTrue();

        CompletableFuture<Hold> timesOut = waiting.acquireAsync(Duration.ofMillis(300));
        Throwable timeout = catchThrowable(() -> timesOut.get(30, TimeUnit.SECONDS));
        assertThat(timeout).isInstanceOf(ExecutionException.class).cause().isInstanceOf(LockTimeoutException.class);

        CompletableFuture<Hold> cancelled = waiting.acquireAsync(Duration.ofSeconds(60));
        Thread.sleep(300);
        assertThat(cancelled.isDone()).as("an async acquire of a held lock completed").isFalse();
        assertThat(cancelled.cancel(true)).isTrue();
        assertThatThrownBy(cancelled::join).isInstanceOf(CancellationException.class);

        fromFuture.close();
        DistributedLock third = client().lock(name);
        try (Hold next = third.tryAcquire(Duration.ofSeconds(5))
                .orElseThrow(() -> new AssertionError("the lock was not free after its holder released it; did the cancelled future take it?"))) {
            assertThat(next.fencingToken()).isGreaterThan(fromFuture.fencingToken());
        }
        assertThat(first.admin().status(name)).hasValueSatisfying(info -> assertThat(info.held()).isFalse());
    }

    // ---------------------------------------------------------------------------------------------
    // 8. Retries are safe

    /**
     * Retries: release is idempotent (also retried late at the SPI, where it must not free a new holder), and
     * a retried acquire by the same owner adopts its hold with the same token.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void releaseAndAcquireAreIdempotentUnderRetries() throws Exception {
        String name = name("idempotent");
        Holdfast holdfastA = client();
        Holdfast holdfastB = client();

        Hold twice = holdfastA.lock(name).acquire(SOON);
        twice.close();
        twice.close();
        holdfastB.lock(name).tryAcquire().orElseThrow(() -> new AssertionError("lock not free after close()")).close();

        try (LockStore store = openStore(uri())) {
            Hold realHold = holdfastA.lock(name).acquire(SOON);
            String realOwner = holdfastA.admin().status(name).map(LockInfo::ownerId)
                    .orElseThrow(() -> new AssertionError("no status for a held lock"));
            if (releasedOnlyByTheHoldingClient()) {
                assertThat(store.release(name, realOwner)).as("another client's release of the holder's owner id").isFalse();
                assertThat(holdfastB.lock(name).tryAcquire()).as("tryAcquire after another client's release").isEmpty();
                assertThat(realHold.isValid()).isTrue();
                realHold.close();
            } else {
                assertThat(store.release(name, realOwner)).as("release by the holder's owner id").isTrue();
                assertThat(store.inspect(name)).hasValueSatisfying(info -> assertThat(info.held()).isFalse());
            }
            assertThat(store.release(name, realOwner)).as("the same release, retried").isFalse();

            Hold newHolder = holdfastB.lock(name).acquire(SOON);
            assertThat(newHolder.fencingToken()).isGreaterThan(realHold.fencingToken());
            assertThat(store.release(name, realOwner)).as("a late retry of the old owner's release").isFalse();
            LockInfo info = store.inspect(name).orElseThrow(() -> new AssertionError("no status for a held lock"));
            assertThat(info.held()).isTrue();
            assertThat(info.fencingToken()).isEqualTo(newHolder.fencingToken());
            assertThat(info.ownerId()).isNotEqualTo(realOwner);
            assertThat(newHolder.isValid()).isTrue();
            assertThat(holdfastA.lock(name).tryAcquire()).as("tryAcquire while the new holder holds").isEmpty();
            newHolder.close();

            String owner = "conformance-retry-" + randomSuffix();
            Attempt firstTry = store.tryAcquire(name, owner, "conformance", Duration.ofSeconds(30));
            Attempt retry = store.tryAcquire(name, owner, "conformance", Duration.ofSeconds(30));
            assertThat(firstTry.acquired()).isTrue();
            assertThat(firstTry.fencingToken()).isGreaterThan(newHolder.fencingToken());
            assertThat(retry.acquired()).as("a retried acquire by the same owner").isTrue();
            assertThat(retry.fencingToken()).as("token of the retried acquire").isEqualTo(firstTry.fencingToken());
            Attempt stranger = store.tryAcquire(name, owner + "-other", "conformance", Duration.ofSeconds(30));
            assertThat(stranger.acquired()).as("another owner's acquire while held").isFalse();
            assertThat(store.release(name, owner)).isTrue();
            assertThat(store.release(name, owner)).isFalse();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers

    /**
     * True for a store whose lock belongs to the holding client's own database session (the JDBC backend's
     * {@code mode=native} and {@code mode=row}): a release retried from another client (another process) finds nothing
     * to free, and the holder keeps its hold.
     */
    protected boolean releasedOnlyByTheHoldingClient() {
        return false;
    }

    private static void assertStrictlyIncreasing(List<Long> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            if (tokens.get(i) <= tokens.get(i - 1)) {
                fail("fencing tokens not strictly increasing at position " + i + ": " + tokens);
            }
        }
    }

    /** Waits (bounded) until {@code thread} is parked or sleeping, that is inside a wait. */
    private static void awaitWaiting(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            Thread.State s = thread.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) {
                return;
            }
            if (s == Thread.State.TERMINATED) {
                return; // the assertions that follow report what it did
            }
            Thread.sleep(10);
        }
        fail("thread " + thread.getName() + " never started waiting; state " + thread.getState());
    }
}
