package io.holdfast;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link MultiLock} against the in-memory store: the global order, all-or-nothing on every way a wait can end
 * (a busy part, the deadline, an interrupt, a cancel, a store error), and a lost part as a loss of the whole.
 */
class MultiLockTest {
    private final InMemoryStore store = new InMemoryStore(false, true);
    private final List<Holdfast> clients = new ArrayList<>();
    private final long violationsBefore = Invariants.violations();

    private ScriptedStore view(InMemoryStore shared) {
        return new ScriptedStore(shared);
    }

    private Holdfast client(ScriptedStore view) {
        Holdfast c = view.client(Duration.ofSeconds(30));
        clients.add(c);
        return c;
    }

    @AfterEach
    void close() {
        clients.forEach(Holdfast::close);
        assertThat(Invariants.violations()).as("broken invariants logged by the core").isEqualTo(violationsBefore);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void partsAreTakenInAscendingNameOrderWhateverOrderTheyAreGivenIn() throws Exception {
        ScriptedStore view = view(store);
        MultiLock lock = client(view).multiLock("c", "a", "b");
        assertThat(lock.names()).containsExactly("a", "b", "c");

        try (MultiHold hold = lock.tryAcquire().orElseThrow()) {
            assertThat(view.attemptedNames).as("store attempts of tryAcquire()").containsExactly("a", "b", "c");
            assertThat(hold.lockNames()).containsExactly("a", "b", "c");
            for (String name : hold.lockNames()) {
                assertThat(hold.fencingToken(name)).as("token of '%s' against the store's", name)
                        .isEqualTo(store.inspect(name).orElseThrow().fencingToken());
            }
            assertThatThrownBy(() -> hold.fencingToken("d")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("[a, b, c]");
        }
        view.attemptedNames.clear();
        try (MultiHold hold = client(view).multiLock("b", "c", "a").acquire(Duration.ofSeconds(5))) {
            assertThat(view.attemptedNames).as("store attempts of acquire(5s)").containsExactly("a", "b", "c");
            assertThat(hold.isValid()).isTrue();
        }
    }

    @Test
    void badNameSetsAreRefusedSayingWhatIsAllowed() {
        Holdfast client = client(view(store));
        String allowed = "allowed: 1 to " + MultiLock.MAX_NAMES + " distinct lock names";
        assertThatThrownBy(() -> client.multiLock("a", "b", "a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a' is given twice").hasMessageContaining(allowed);
        assertThatThrownBy(() -> client.multiLock()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(allowed);
        assertThatThrownBy(() -> client.multiLock((String[]) null)).isInstanceOf(IllegalArgumentException.class);
        String[] tooMany = IntStream.rangeClosed(0, MultiLock.MAX_NAMES).mapToObj(i -> "n" + i).toArray(String[]::new);
        assertThatThrownBy(() -> client.multiLock(tooMany)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining((MultiLock.MAX_NAMES + 1) + " names").hasMessageContaining(allowed);
        assertThatThrownBy(() -> client.multiLock("a", "b c")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock name 'b c'");
        assertThatThrownBy(() -> client.multiLock(List.of("a"), Duration.ZERO, true)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aBusyPartMakesTryAcquireGiveBackThePartsTakenBeforeIt() throws Exception {
        ScriptedStore view = view(store);
        Hold other = client(view(store)).lock("b").acquire(Duration.ofSeconds(5));
        assertThat(client(view).multiLock("a", "b", "c").tryAcquire()).isEmpty();
        assertThat(view.attemptedNames).as("attempts: 'c' is not tried once 'b' is busy").containsExactly("a", "b");
        assertThat(store.holder("a")).as("holder of 'a' after the multi-lock gave up").isEmpty();
        assertThat(store.holder("b")).isPresent();
        other.close();
    }

    @ParameterizedTest(name = "queueing store {0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWaitThatRunsOutGivesBackThePartsTakenAndNamesTheBusyOne(boolean queues) throws Exception {
        InMemoryStore shared = new InMemoryStore(queues, true);
        Hold other = client(view(shared)).lock("b").acquire(Duration.ofSeconds(5));
        MultiLock lock = client(view(shared)).multiLock("a", "b", "c");

        assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(300))).isInstanceOf(LockTimeoutException.class)
                .hasMessageContaining("[a, b, c]").hasMessageContaining("'b' stayed held").hasMessageContaining("none of its locks is held");
        assertThat(shared.holder("a")).as("holder of 'a' right after the time-out").isEmpty();
        assertThat(lock.tryAcquire(Duration.ofMillis(300))).isEmpty();
        assertThat(eventually(() -> shared.leftovers().size() == 1))
                .as("only the other client's hold is left in the store: %s", shared.leftovers()).isTrue();
        other.close();
        try (MultiHold hold = lock.acquire(Duration.ofSeconds(5))) {
            assertThat(hold.fencingToken("b")).isGreaterThan(other.fencingToken());
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void anInterruptedWaitGivesBackThePartsTaken() throws Exception {
        Hold other = client(view(store)).lock("b").acquire(Duration.ofSeconds(5));
        ScriptedStore view = view(store);
        MultiLock lock = client(view).multiLock("a", "b");
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                lock.acquire().close();
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        waiter.start();
        assertThat(eventually(() -> view.attemptedNames.contains("b"))).as("the waiter took 'a' and waits for 'b'").isTrue();
        view.releaseDelayMillis = 200; // a slow give-back: the interrupted acquire throws only once it is done
        waiter.interrupt();
        waiter.join(10_000);
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(store.holder("a")).as("holder of 'a' once the interrupted acquire has thrown").isEmpty();
        other.close();
        Thread.sleep(300); // a zombie wait for 'b' would take it now
        assertThat(store.holder("b")).as("holder of 'b' after its release: no zombie took it").isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void cancellingAnAsyncWaitGivesBackThePartsTaken() throws Exception {
        Hold other = client(view(store)).lock("b").acquire(Duration.ofSeconds(5));
        ScriptedStore view = view(store);
        CompletableFuture<MultiHold> f = client(view).multiLock("a", "b").acquireAsync(Duration.ofHours(1));
        assertThat(eventually(() -> view.attemptedNames.contains("b"))).as("the wait took 'a' and waits for 'b'").isTrue();
        f.cancel(false);
        assertThat(eventually(() -> store.holder("a").isEmpty())).as("'a' given back on the I/O pool once the wait is cancelled").isTrue();
        other.close();
        Thread.sleep(300); // a zombie wait for 'b' would take it now
        assertThat(store.holder("b")).as("holder of 'b' after its release: no zombie took it").isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aStoreErrorOnALaterPartGivesBackThePartsTakenAndIsRethrown() throws Exception {
        ScriptedStore view = view(store);
        MultiLock lock = client(view).multiLock("a", "b");
        view.failAttempt = name -> name.equals("b") ? new IllegalStateException("injected failure on 'b'") : null;
        assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("injected failure on 'b'");
        assertThat(store.holder("a")).as("holder of 'a' after acquire(5s) failed on 'b'").isEmpty();
        assertThatThrownBy(lock::tryAcquire).isInstanceOf(IllegalStateException.class).hasMessageContaining("injected");
        assertThat(store.holder("a")).as("holder of 'a' after tryAcquire() failed on 'b'").isEmpty();

        view.failAttempt = name -> name.equals("b") ? new StoreUnavailableException("memory", "here", "injected outage", null) : null;
        assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(300))).as("a part's store staying unreachable until the deadline")
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(store.holder("a")).as("holder of 'a' after the outage on 'b'").isEmpty();

        view.failAttempt = name -> null;
        lock.acquire(Duration.ofSeconds(5)).close();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void overlappingMultiLocksGivenInOppositeOrdersNeverDeadlockAndExclude() throws Exception {
        store.latencyMicros = 200;
        List<MultiLock> locks = List.of(client(view(store)).multiLock("a", "b", "c"),
                client(view(store)).multiLock("c", "b", "a"), client(view(store)).multiLock("c", "a"));
        Map<String, int[]> counters = Map.of("a", new int[1], "b", new int[1], "c", new int[1]);
        int rounds = 30;
        ExecutorService pool = Executors.newFixedThreadPool(locks.size());
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> workers = new ArrayList<>();
            for (MultiLock lock : locks) {
                workers.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < rounds; i++) {
                        try (MultiHold hold = lock.acquire()) {
                            for (String name : hold.lockNames()) {
                                int read = counters.get(name)[0]; // plain: only the locks keep read-sleep-write exact
                                Thread.sleep(1);
                                counters.get(name)[0] = read + 1;
                            }
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> worker : workers) {
                worker.get(100, TimeUnit.SECONDS); // a deadlock fails here, or at the timeout with a thread dump
            }
        } finally {
            pool.shutdownNow();
        }
        synchronized (counters) { // the workers' writes are visible: Future.get orders them before this
            assertThat(counters.get("a")[0]).as("increments of 'a'").isEqualTo(3 * rounds);
            assertThat(counters.get("b")[0]).as("increments of 'b'").isEqualTo(2 * rounds);
            assertThat(counters.get("c")[0]).as("increments of 'c'").isEqualTo(3 * rounds);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aLostPartIsALossOfTheWholeAndCloseStillReleasesTheOthers() throws Exception {
        MultiHold hold = client(view(store)).multiLock(List.of("a", "b", "c"), Duration.ofMillis(600), true)
                .acquire(Duration.ofSeconds(5));
        List<String> told = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch lost = new CountDownLatch(1);
        hold.onLost((part, reason) -> {
            told.add(part.lockName() + ": " + reason);
            lost.countDown();
        });
        assertThat(store.forceRelease("b")).isTrue();

        assertThat(lost.await(10, TimeUnit.SECONDS)).as("told of the loss of 'b'").isTrue();
        assertThat(hold.isValid()).isFalse();
        assertThat(hold.state()).isEqualTo(Hold.State.LOST);
        assertThat(hold.lossReason()).contains("'b'");
        assertThatThrownBy(hold::checkValid).isInstanceOf(LockLostException.class).hasMessageContaining("'b'");
        CountDownLatch lateListener = new CountDownLatch(1);
        hold.onLost((part, reason) -> {
            if (part.lockName().equals("b")) {
                lateListener.countDown();
            }
        });
        assertThat(lateListener.await(10, TimeUnit.SECONDS)).as("a listener added after the loss is told at once").isTrue();
        assertThat(store.holder("a")).as("'a' stays held until the owner closes").isPresent();

        assertThatThrownBy(hold::close).isInstanceOf(LockLostException.class).hasMessageContaining("'b'")
                .hasMessageContaining("the other locks were released");
        assertThat(store.holder("a")).as("holder of 'a' after close").isEmpty();
        assertThat(store.holder("c")).as("holder of 'c' after close").isEmpty();
        hold.close(); // a second close does nothing
        assertThat(told).hasSize(1).allMatch(line -> line.startsWith("b: "));
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void closeReleasesEveryPartOnce() throws Exception {
        MultiHold hold = client(view(store)).multiLock("a", "b").acquire(Duration.ofSeconds(5));
        hold.close();
        assertThat(store.leftovers()).isEmpty();
        assertThat(hold.state()).isEqualTo(Hold.State.RELEASED);
        assertThat(hold.isValid()).isFalse();
        assertThatThrownBy(hold::checkValid).isInstanceOf(LockLostException.class).hasMessageContaining("released");
        hold.close();
        Hold next = client(view(store)).lock("a").tryAcquire().orElseThrow();
        next.close();
    }

    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - deadline < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return condition.getAsBoolean();
    }
}
