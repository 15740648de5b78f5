package io.holdfast;

import io.holdfast.LockListener.AcquireOutcome;
import io.holdfast.RecordingListener.Event;
import io.holdfast.RecordingListener.Kind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@link LockListener} guarantees, path by path, against the in-memory store: each acquire is told one end
 * with the outcome its caller saw, each hold one release or loss, re-entry nothing, and a listener that throws
 * changes nothing for the lock.
 */
class LockListenerTest {
    private final List<Holdfast> clients = new ArrayList<>();
    private final RecordingListener recorder = new RecordingListener();

    private Holdfast client(InMemoryStore store, LockListener... listeners) {
        Holdfast c = store.client(List.of(listeners));
        clients.add(c);
        return c;
    }

    @AfterEach
    void close() {
        clients.forEach(Holdfast::close);
    }

    @ParameterizedTest(name = "queueing store {0}")
    @CsvSource({"false", "true"})
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void eachWayToAcquireIsToldOnceAndItsReleaseOnce(boolean queues) throws Exception {
        Holdfast client = client(new InMemoryStore(queues, true), recorder);
        DistributedLock lock = client.lock("orders/1");
        long[] tokens = new long[3];
        try (Hold hold = lock.acquire(Duration.ofSeconds(5))) {  // the caller's own first attempt
            tokens[0] = hold.fencingToken();
        }
        try (Hold hold = lock.tryAcquire().orElseThrow()) {
            tokens[1] = hold.fencingToken();
        }
        try (Hold hold = lock.acquireAsync(Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS)) {  // an Acquisition
            tokens[2] = hold.fencingToken();
        }
        List<String> expected = new ArrayList<>();
        for (long token : tokens) {
            expected.addAll(List.of("STARTED orders/1", "ENDED ACQUIRED orders/1 #" + token, "RELEASED orders/1 #" + token));
        }
        assertThat(recorder.summary()).containsExactlyElementsOf(expected);
        recorder.checkGuarantees();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWaitThatRunsOutAndARefusedTryAcquireAreToldTimedOut() throws Exception {
        InMemoryStore store = new InMemoryStore(false, true);
        Hold held = client(store).lock("job").acquire(Duration.ofSeconds(5));
        DistributedLock lock = client(store, recorder).lock("job");

        assertThat(lock.tryAcquire()).isEmpty();
        assertThat(lock.tryAcquire(Duration.ofMillis(100))).isEmpty();
        assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(50))).isInstanceOf(LockTimeoutException.class);
        CompletableFuture<Hold> async = lock.acquireAsync(Duration.ofMillis(50));
        assertThatThrownBy(() -> async.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(LockTimeoutException.class);

        assertThat(recorder.summary()).containsExactly(
                "STARTED job", "ENDED BUSY job", "STARTED job", "ENDED TIMED_OUT job",
                "STARTED job", "ENDED TIMED_OUT job", "STARTED job", "ENDED TIMED_OUT job");
        Event timedWait = recorder.events.get(3);
        assertThat(timedWait.time()).as("time waited by tryAcquire(100 ms)").isGreaterThanOrEqualTo(Duration.ofMillis(100));
        held.close();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWaitTheCallerCancelsCompletesOrInterruptsIsToldAbandoned() throws Exception {
        InMemoryStore store = new InMemoryStore(false, true);
        Hold held = client(store).lock("job").acquire(Duration.ofSeconds(5));
        DistributedLock lock = client(store, recorder).lock("job");

        CompletableFuture<Hold> cancelled = lock.acquireAsync(Duration.ofHours(1));
        cancelled.cancel(false);
        CompletableFuture<Hold> timedOutByCaller = lock.acquireAsync(Duration.ofHours(1)).orTimeout(50, TimeUnit.MILLISECONDS);
        assertThatThrownBy(() -> timedOutByCaller.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(TimeoutException.class);

        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                outcome.set(lock.acquire(Duration.ofHours(1)));
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        waiter.start();
        recorder.awaitUntil("the third wait started", () -> recorder.count(Kind.STARTED) == 3);
        waiter.interrupt();
        waiter.join(5_000);
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);

        recorder.awaitUntil("three waits abandoned", () -> recorder.count(AcquireOutcome.ABANDONED) == 3);
        assertThat(recorder.count(Kind.ENDED)).isEqualTo(3);
        held.close();
        Thread.sleep(200); // a wait left running would take the lock now
        assertThat(recorder.count(AcquireOutcome.ACQUIRED)).as("grants after the waits were abandoned").isZero();
        recorder.checkGuarantees();
        assertThatThrownBy(() -> cancelled.get()).isInstanceOf(CancellationException.class);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void closingTheClientAbandonsItsWaitsAndReleasesItsHolds() throws Exception {
        InMemoryStore store = new InMemoryStore(false, false);
        Hold held = client(store).lock("job").acquire(Duration.ofSeconds(5));
        Holdfast client = store.client(List.of(recorder));
        Hold mine = client.lock("other").acquire(Duration.ofSeconds(5));
        CompletableFuture<Object> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return client.lock("job").acquire(Duration.ofHours(1));
            } catch (Throwable e) {
                return e;
            }
        });
        recorder.await(e -> e.kind() == Kind.STARTED && e.name().equals("job"));
        client.close();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
        recorder.await(e -> e.kind() == Kind.ENDED && e.name().equals("job"));
        assertThat(recorder.summary()).containsExactlyInAnyOrder(
                "STARTED other", "ENDED ACQUIRED other #" + mine.fencingToken(), "RELEASED other #" + mine.fencingToken(),
                "STARTED job", "ENDED ABANDONED job");
        recorder.checkGuarantees();
        held.close();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aStoreErrorIsToldFailed() throws Exception {
        InMemoryStore store = new InMemoryStore(false, true);
        DistributedLock lock = client(store, recorder).lock("job");

        store.failBefore = 1.0; // unreachable: transient, retried until the wait runs out
        assertThatThrownBy(lock::tryAcquire).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(100))).isInstanceOf(StoreUnavailableException.class);
        store.failBefore = 0;
        store.acquireError = new IllegalStateException("injected: the store refuses"); // not transient: ends at once
        assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(5))).hasMessageContaining("injected");
        CompletableFuture<Hold> async = lock.acquireAsync(Duration.ofSeconds(5));
        assertThatThrownBy(() -> async.get(5, TimeUnit.SECONDS)).hasRootCauseMessage("injected: the store refuses");

        assertThat(recorder.summary()).containsExactly(
                "STARTED job", "ENDED FAILED job", "STARTED job", "ENDED FAILED job",
                "STARTED job", "ENDED FAILED job", "STARTED job", "ENDED FAILED job");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aHoldLostInAnOutageIsToldLostAfterItsFailedRenewals() throws Exception {
        InMemoryStore store = new InMemoryStore(false, false);
        Holdfast client = client(store, recorder);
        // Renewed at a third of the lease, retried every 200 ms; the local deadline is at 2 s minus its margin.
        Hold hold = client.lock("job", Duration.ofSeconds(2), true).acquire(Duration.ofSeconds(5));
        store.failBefore = 1.0;
        Event lost = recorder.await(e -> e.kind() == Kind.LOST);
        store.failBefore = 0;

        assertThat(lost.token()).isEqualTo(hold.fencingToken());
        assertThat((String) lost.detail()).contains("could not be renewed in time", "injected outage");
        List<Event> ofTheHold = recorder.events.stream().filter(e -> e.kind() != Kind.STARTED).toList();
        assertThat(ofTheHold.get(0).outcome()).isEqualTo(AcquireOutcome.ACQUIRED);
        assertThat(ofTheHold.subList(1, ofTheHold.size() - 1)).as("events between grant and loss")
                .isNotEmpty().allSatisfy(e -> {
                    assertThat(e.kind()).isEqualTo(Kind.RENEWAL_FAILED);
                    assertThat(e.token()).isEqualTo(hold.fencingToken());
                    assertThat(e.detail()).isInstanceOf(StoreUnavailableException.class);
                });
        assertThat(ofTheHold.get(ofTheHold.size() - 1)).isSameAs(lost);
        assertThatThrownBy(hold::close).isInstanceOf(LockLostException.class);
        assertThat(recorder.count(Kind.RELEASED)).as("a lost hold closed afterwards is not also released").isZero();
        recorder.checkGuarantees();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void reentryIsNotTold() throws Exception {
        Holdfast client = client(new InMemoryStore(false, true), recorder);
        Hold outer = client.lock("job").acquire(Duration.ofSeconds(5));
        Hold inner = outer.reenter();
        inner.close();
        assertThat(recorder.count(Kind.RELEASED)).as("released after the inner hold closed").isZero();
        outer.close();

        FencedLock view = client.lock("view").asLock();
        view.lock();
        view.lock();
        assertThat(view.tryLock()).isTrue();
        view.unlock();
        view.unlock();
        assertThat(recorder.count(Kind.RELEASED)).as("released while the thread still holds the view").isEqualTo(1);
        view.unlock();

        assertThat(recorder.summary()).containsExactly(
                "STARTED job", "ENDED ACQUIRED job #1", "RELEASED job #1",
                "STARTED view", "ENDED ACQUIRED view #1", "RELEASED view #1");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aListenerThatThrowsChangesNothingForTheLockNorForOtherListeners() throws Exception {
        LockListener throwing = new LockListener() {
            @Override
            public void acquireStarted(String lockName) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void acquireEnded(String lockName, AcquireOutcome outcome, Duration waited, long token) {
                throw new AssertionError("listener bug");
            }

            @Override
            public void released(String lockName, long token, Duration held) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void lost(String lockName, long token, Duration held, String reason) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void renewalFailed(String lockName, long token, Throwable error) {
                throw new IllegalStateException("listener bug");
            }
        };
        InMemoryStore store = new InMemoryStore(false, true);
        Holdfast client = client(store, throwing, recorder, throwing);
        DistributedLock lock = client.lock("job");

        Hold hold = lock.acquire(Duration.ofSeconds(5));
        assertThat(lock.tryAcquire(Duration.ofMillis(50))).isEmpty();
        CompletableFuture<Hold> next = lock.acquireAsync(Duration.ofSeconds(5));
        hold.close();
        Hold second = next.get(5, TimeUnit.SECONDS);
        assertThat(second.isValid()).isTrue();
        second.close();
        assertThat(store.holder("job")).isEmpty();

        Hold brief = client.lock("brief", Duration.ofMillis(300), false).acquire(Duration.ofSeconds(5));
        recorder.await(e -> e.kind() == Kind.LOST);
        assertThat(brief.isValid()).isFalse();

        assertThat(recorder.summary()).containsExactly(
                "STARTED job", "ENDED ACQUIRED job #1", "STARTED job", "ENDED TIMED_OUT job", "STARTED job",
                "RELEASED job #1", "ENDED ACQUIRED job #2", "RELEASED job #2",
                "STARTED brief", "ENDED ACQUIRED brief #1", "LOST brief #1");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aClientWithoutListenersWorksAsBefore() throws Exception {
        Holdfast client = Holdfast.builder(new InMemoryStore(false, true)).connect();
        clients.add(client);
        Optional<Hold> hold = client.lock("job").tryAcquire(Duration.ofSeconds(1));
        assertThat(hold).isPresent();
        hold.get().close();
        assertThatThrownBy(() -> Holdfast.builder(new InMemoryStore(false, true)).listener(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("listener");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void theBuildersListenersAreTold() throws Exception {
        RecordingListener second = new RecordingListener();
        Holdfast client = Holdfast.builder(new InMemoryStore(false, true)).listener(recorder).listener(second).connect();
        clients.add(client);
        client.lock("job").acquire(Duration.ofSeconds(1)).close();
        assertThat(recorder.summary()).containsExactly("STARTED job", "ENDED ACQUIRED job #1", "RELEASED job #1");
        assertThat(second.summary()).isEqualTo(recorder.summary());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWaitAbandonedDuringItsStoreCallIsToldOnceAndItsLateGrantIsNot() throws Exception {
        InMemoryStore store = new InMemoryStore(false, false);
        Holdfast client = client(store, recorder);
        CountDownLatch givenBack = new CountDownLatch(1);
        store.onRelease = name -> givenBack.countDown();
        store.latencyMicros = 300_000;
        CompletableFuture<Hold> f = client.lock("job").acquireAsync(Duration.ofSeconds(5)); // its attempt is in flight
        f.cancel(false);
        assertThat(recorder.summary()).containsExactly("STARTED job", "ENDED ABANDONED job");
        assertThat(givenBack.await(10, TimeUnit.SECONDS)).as("the late grant given back").isTrue();
        recorder.awaitUntil("the store freed the late grant", () -> store.holder("job").isEmpty());
        assertThat(store.attempts.get()).isEqualTo(1);
        assertThat(recorder.summary()).containsExactly("STARTED job", "ENDED ABANDONED job");
    }
}
