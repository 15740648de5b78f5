package io.holdfast.testkit;

import java.util.concurrent.CopyOnWriteArrayList;
import io.holdfast.DistributedLock;
import io.holdfast.FencedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import io.holdfast.LockLostException;
import io.holdfast.LockTimeoutException;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.LockStoreProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
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
public abstract class LockConformanceSuite extends RecipeConformance {
    /** How long a test waits for a lock it expects to get soon. */
    private static final Duration SOON = Duration.ofSeconds(20);

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
    // 2. Lease: a killed holder's lock frees within its lease

    /**
     * Lease: a holder process renews while it lives, and once killed with SIGKILL its lock frees within the
     * lease (plus generous slack), with a greater token for the next holder.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    public void aHolderKilledWithSigkillLosesTheLockWithinItsLease() throws Exception {
        String name = name("sigkill");
        Duration lease = Duration.ofSeconds(2);
        Holdfast survivor = client();
        DistributedLock lock = survivor.lock(name);
        try (ChildJvm child = ChildJvm.start(HolderProcess.class, uri(), name, "2s")) {
            String held = child.awaitLine(line -> line.startsWith(HolderProcess.HELD), Duration.ofSeconds(90));
            long childToken = Long.parseLong(held.substring(HolderProcess.HELD.length()).trim());

            assertThat(lock.tryAcquire()).as("tryAcquire while the child holds the lock").isEmpty();
            LockInfo info = survivor.admin().status(name).orElseThrow(() -> new AssertionError("no status for a held lock"));
            assertThat(info.held()).isTrue();
            assertThat(info.fencingToken()).isEqualTo(childToken);
            assertThat(info.holder()).as("holder of the child's lock").endsWith(":" + child.pid());

            // Past two lease lengths the child is still the holder: it renews while it lives.
            Thread.sleep(lease.multipliedBy(2).toMillis());
            assertThat(child.isAlive()).as("child alive; output:\n%s", child.transcript()).isTrue();
            assertThat(lock.tryAcquire()).as("tryAcquire after two leases while the child lives and renews").isEmpty();

            assertThat(child.transcript()).as("the child's output before the kill").doesNotContain(HolderProcess.LOST);

            child.kill();
            try (Hold hold = lock.acquire(lease.plus(Duration.ofSeconds(20)))) {
                assertThat(hold.fencingToken()).isGreaterThan(childToken);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // 7. Lost holds are loud

    /**
     * Lost holds are loud at release too: a hold the store no longer has when its owner releases it
     * (force-released here, before any renewal could notice; a holder paused past its lease is the same
     * case) makes the release throw {@link LockLostException}, never return as if all was well.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    public void aReleaseOfAHoldTheStoreNoLongerHasReportsTheLoss() throws Exception {
        String name = name("release-after-loss");
        Holdfast holder = client();
        Holdfast operator = client();
        Hold hold = holder.lock(name).acquire(SOON); // default 30 s lease: no renewal within this test
        assertThat(operator.admin().forceRelease(name)).isTrue();
        assertThatThrownBy(hold::close)
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("no longer had this hold");
        assertThat(hold.state()).isEqualTo(Hold.State.LOST);
        assertThat(hold.isValid()).isFalse();
        Hold next = operator.lock(name).acquire(SOON);
        assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
        next.close();
    }

    /**
     * Loud loss: a hold force-released by an operator is reported to its listener, turns invalid, and its
     * close() throws {@link LockLostException}.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void aForceReleasedHoldIsReportedLost() throws Exception {
        String name = name("force-release");
        Holdfast holder = client();
        Holdfast operator = client();
        Hold hold = holder.lock(name, Duration.ofSeconds(1), true).acquire(SOON);
        CountDownLatch lost = new CountDownLatch(1);
        AtomicReference<String> reason = new AtomicReference<>();
        hold.onLost((h, why) -> {
            reason.set(why);
            lost.countDown();
        });
        assertThat(hold.isValid()).isTrue();

        assertThat(operator.admin().forceRelease(name)).as("forceRelease of a held lock").isTrue();
        assertThat(lost.await(30, TimeUnit.SECONDS)).as("onLost called within 30s of the force release").isTrue();
        assertThat(reason.get()).isNotBlank();
        assertThat(hold.isValid()).isFalse();
        assertThat(hold.state()).isEqualTo(Hold.State.LOST);
        assertThat(hold.lossReason()).isNotBlank();
        assertThatThrownBy(hold::checkValid).isInstanceOf(LockLostException.class);
        assertThatThrownBy(hold::close).as("close() of a lost hold").isInstanceOf(LockLostException.class);
        try (Hold next = operator.lock(name).acquire(SOON)) {
            assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
        }
    }

    /**
     * Loud loss: a client cut off from the store reports its hold lost before the store frees the lock (the local
     * deadline passes first); after the outage the next holder gets a greater token. The store is watched by an
     * inspector polling throughout the outage: no look that returned while the hold was still valid may have seen
     * the lock free or held by another owner. (A look that returns after the hold turned invalid proves nothing either
     * way, so a slow machine weakens the check but never fails it falsely.)
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    public void aHoldCutOffFromTheStoreIsReportedLostBeforeTheStoreFreesIt() throws Exception {
        String name = name("outage");
        Holdfast inspector = client();
        assertThat(inspector.admin().status(name)).as("status of a lock never taken").isEmpty(); // warms the connection up
        StoreOutage outage = closeLater(outage());
        Holdfast cutOff = client(outage.clientUri());
        Hold hold = cutOff.lock(name, Duration.ofSeconds(2), true).acquire(SOON);
        LockInfo before = inspector.admin().status(name).orElseThrow(() -> new AssertionError("no status for a held lock"));
        assertThat(before.fencingToken()).isEqualTo(hold.fencingToken());

        AtomicReference<Boolean> validAtLoss = new AtomicReference<>();
        CountDownLatch lost = new CountDownLatch(1);
        hold.onLost((h, why) -> {
            validAtLoss.set(h.isValid());
            lost.countDown();
        });

        // Let at least one renewal succeed through the outage's path first.
        Thread.sleep(1_000);
        assertThat(hold.isValid()).as("hold valid before the outage").isTrue();
        List<String> seenFreeBeforeLoss = new CopyOnWriteArrayList<>();
        AtomicInteger looksBeforeLoss = new AtomicInteger();
        outage.begin();
        Thread watcher = new Thread(() -> {
            while (hold.isValid()) {
                try {
                    Optional<LockInfo> info = inspector.admin().status(name);
                    // Still valid after the look returned: the look saw the store while the client trusted its hold.
                    if (hold.isValid()) {
                        looksBeforeLoss.incrementAndGet();
                        if (info.isEmpty() || !info.get().held() || !before.ownerId().equals(info.get().ownerId())) {
                            seenFreeBeforeLoss.add(String.valueOf(info.orElse(null)));
                        }
                    }
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // the inspector's own call failed: no observation
                }
            }
        }, "outage-inspector");
        watcher.setDaemon(true);
        watcher.start();
        try {
            assertThat(lost.await(30, TimeUnit.SECONDS)).as("onLost called within 30s of the outage").isTrue();
            watcher.interrupt();
            watcher.join(TimeUnit.SECONDS.toMillis(30));
            System.out.println(getClass().getSimpleName() + " outage: " + looksBeforeLoss.get()
                    + " looks at the store returned while the hold was valid");
            assertThat(seenFreeBeforeLoss).as("looks at the store, returned while the client's hold was still valid, that "
                    + "saw the lock free or held by another owner").isEmpty();
            assertThat(validAtLoss.get()).as("isValid() inside the listener").isFalse();
            assertThat(hold.isValid()).isFalse();
            assertThat(hold.state()).isEqualTo(Hold.State.LOST);
        } finally {
            watcher.interrupt();
            outage.end();
        }

        try (Hold next = client().lock(name).acquire(SOON)) {
            assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
        }
        assertThatThrownBy(hold::close).as("close() of the hold lost in the outage").isInstanceOf(LockLostException.class);
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
    // 9. Errors are clear

    /**
     * Errors: bad names, leases, waits and URIs are refused with {@link IllegalArgumentException}s that say
     * what is allowed.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    public void badNamesDurationsAndUrisAreRejectedWithWhatIsAllowed() throws Exception {
        Holdfast holdfast = client();
        List<String> badNames = new ArrayList<>(List.of("", "a b", "a//b", "/a", "x".repeat(201)));
        badNames.add(null);
        for (String bad : badNames) {
            assertThatThrownBy(() -> holdfast.lock(bad)).as("lock(%s)", bad == null ? "null" : "'" + bad + "'")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed");
            assertThatThrownBy(() -> holdfast.lock(bad, Duration.ofSeconds(5), true)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("allowed");
        }
        assertThat(holdfast.lock("x".repeat(200)).name()).as("a 200-character name").hasSize(200);

        String name = name("bad-input");
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(50), Duration.ofDays(8), Duration.ofSeconds(-1))) {
            assertThatThrownBy(() -> holdfast.lock(name, bad, true)).as("lease %s", bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed");
        }
        DistributedLock lock = holdfast.lock(name);
        Duration negative = Duration.ofMillis(-1);
        assertThatThrownBy(() -> lock.tryAcquire(negative)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed");
        assertThatThrownBy(() -> lock.acquire(negative)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed");
        assertThatThrownBy(() -> lock.acquireAsync(negative)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed");
        assertThat(holdfast.admin().status(name)).as("status after rejected calls: nothing was acquired").isEmpty();

        List<String> schemes = new ArrayList<>();
        ServiceLoader.load(LockStoreProvider.class).forEach(p -> schemes.addAll(p.schemes()));
        assertThat(schemes).as("schemes of the backends on the class path").isNotEmpty();
        Throwable unknown = catchThrowable(() -> Holdfast.connect("nosuch://x").close());
        assertThat(unknown).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nosuch://x");
        for (String scheme : schemes) {
            assertThat(unknown.getMessage()).as("message for an unknown scheme lists accepted schemes").contains(scheme);
        }
    }

    /**
     * Errors: an unreachable store raises {@link StoreUnavailableException} naming backend and address, never
     * a silent false.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void anUnreachableStoreRaisesATypedExceptionNamingBackendAndAddress() throws Exception {
        String expectedBackend;
        try (LockStore reachable = openStore(uri())) {
            expectedBackend = reachable.backend();
        }
        String name = name("unreachable");
        Holdfast holdfast;
        try {
            holdfast = Holdfast.connect(unreachableUri());
        } catch (StoreUnavailableException e) {
            assertNamesBackendAndAddress(e, expectedBackend);
            return;
        }
        closeLater(holdfast);
        // A backend that connects lazily must fail the first call instead.
        DistributedLock lock = holdfast.lock(name);
        Throwable noWait = catchThrowable(lock::tryAcquire);
        assertThat(noWait).as("tryAcquire() on an unreachable store").isInstanceOf(StoreUnavailableException.class);
        assertNamesBackendAndAddress((StoreUnavailableException) noWait, expectedBackend);
        Throwable timed = catchThrowable(() -> lock.tryAcquire(Duration.ofSeconds(1)));
        assertThat(timed).as("tryAcquire(1s) on an unreachable store (never a silent empty)").isInstanceOf(StoreUnavailableException.class);
    }

    // ---------------------------------------------------------------------------------------------
    // Operators

    /**
     * Operators: status shows holder, owner id, token and lease left; list shows held locks under a prefix only.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    public void adminShowsHoldersAndListsByPrefix() throws Exception {
        String prefix = name("admin") + "/";
        String holderName = "conformance-holder-" + randomSuffix();
        Holdfast holdfast = closeLater(Holdfast.builder(uri()).holderName(holderName).connect());
        Holdfast outsider = client();
        Duration lease = Duration.ofSeconds(30);

        Hold a = holdfast.lock(prefix + "a", lease, true).acquire(SOON);
        Hold b = holdfast.lock(prefix + "b", lease, true).acquire(SOON);
        holdfast.lock(prefix + "released").acquire(SOON).close();
        Hold elsewhere = holdfast.lock(name("admin-other")).acquire(SOON);
        assertThat(elsewhere.isValid()).isTrue();

        LockInfo info = outsider.admin().status(prefix + "a").orElseThrow(() -> new AssertionError("no status for a held lock"));
        assertThat(info.name()).isEqualTo(prefix + "a");
        assertThat(info.held()).isTrue();
        assertThat(info.holder()).isEqualTo(holderName);
        assertThat(info.ownerId()).isNotBlank();
        assertThat(info.fencingToken()).isEqualTo(a.fencingToken());
        assertThat(info.leaseRemaining()).isNotNull().isPositive().isLessThanOrEqualTo(lease);

        LockInfo released = outsider.admin().status(prefix + "released").orElse(null);
        if (released != null) { // a store may prune free locks
            assertThat(released.held()).as("status of a released lock").isFalse();
            assertThat(released.ownerId()).isNull();
            assertThat(released.leaseRemaining()).isNull();
        }
        assertThat(outsider.admin().status(prefix + "never")).as("status of a name never used").isEmpty();

        List<LockInfo> listed = outsider.admin().list(prefix, 100);
        assertThat(listed).extracting(LockInfo::name).containsExactly(prefix + "a", prefix + "b");
        assertThat(listed).allSatisfy(l -> {
            assertThat(l.held()).isTrue();
            assertThat(l.holder()).isEqualTo(holderName);
        });
        assertThat(listed.get(1).fencingToken()).isEqualTo(b.fencingToken());
        assertThat(outsider.admin().list(prefix, 1)).extracting(LockInfo::name).containsExactly(prefix + "a");

        b.close();
        assertThat(outsider.admin().list(prefix, 100)).extracting(LockInfo::name).containsExactly(prefix + "a");
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

    /** Opens the backend's {@link LockStore} for {@code uri} directly, as the core does. */
    private static LockStore openStore(String uri) {
        for (LockStoreProvider provider : ServiceLoader.load(LockStoreProvider.class)) {
            if (provider.accepts(uri)) {
                return provider.open(uri);
            }
        }
        return fail("no LockStoreProvider on the class path accepts " + uri);
    }

    private void assertNamesBackendAndAddress(StoreUnavailableException e, String expectedBackend) {
        assertThat(e.backend()).as("backend named by the exception").isEqualTo(expectedBackend);
        assertThat(e.address()).as("address named by the exception").isNotBlank();
        assertThat(e.getMessage()).contains(expectedBackend).contains(e.address());
        String hint = unreachableAddressHint();
        if (hint != null) {
            assertThat(e.getMessage()).as("message of the exception for %s", unreachableUri()).contains(hint);
        }
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
