package io.holdfast;

import io.holdfast.LockListener.AcquireOutcome;
import io.holdfast.RecordingListener.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Threads of three clients acquire three names every way there is (no wait, short waits, async waits they cancel)
 * while the store adds latency, outages and lost replies; one listener hears all three clients. Bounded in
 * operations and time. Afterwards every acquire started has ended, every hold acquired was released or lost, each
 * exactly once and in order, and each operation of the callers was told as exactly one acquire.
 */
class LockListenerConcurrencyTest {
    private static final String[] NAMES = {"a", "b/1", "c:2"};
    private static final Duration[] WAITS = {Duration.ofMillis(1), Duration.ofMillis(20), Duration.ofMillis(100)};

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void startedEqualsEndedAndAcquiredEqualsReleasedPlusLost() throws Exception {
        long violationsBefore = Invariants.violations();
        RecordingListener recorder = new RecordingListener();
        InMemoryStore store = new InMemoryStore(false, true);
        store.latencyMicros = 200;
        store.failBefore = 0.02;
        store.failAfter = 0.02;
        List<Holdfast> clients = List.of(store.client(List.of(recorder)), store.client(List.of(recorder)),
                store.client(List.of(recorder)));
        AtomicInteger operations = new AtomicInteger();
        AtomicInteger holdsReceived = new AtomicInteger();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        long endAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            Random random = new Random(t);
            Holdfast client = clients.get(t % clients.size());
            Thread worker = new Thread(() -> {
                for (int op = 0; op < 200 && System.nanoTime() - endAt < 0; op++) {
                    DistributedLock lock = client.lock(NAMES[random.nextInt(NAMES.length)]);
                    operations.incrementAndGet();
                    try {
                        Optional<Hold> hold = oneAcquire(lock, random);
                        if (hold.isPresent()) {
                            holdsReceived.incrementAndGet();
                            try (Hold h = hold.get()) {
                                if (random.nextBoolean()) {
                                    h.reenter().close();
                                }
                                Thread.sleep(random.nextInt(2));
                            }
                        }
                    } catch (LockTimeoutException | StoreUnavailableException | CancellationException e) {
                        // outcomes the contract allows under injected outages and cancels
                    } catch (Throwable e) {
                        problems.add("operation failed: " + e);
                    }
                }
            }, "listener-stress-" + t);
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join(60_000);
            assertThat(worker.isAlive()).as("worker %s still running", worker.getName()).isFalse();
        }
        store.failBefore = 0;
        store.failAfter = 0;
        clients.forEach(Holdfast::close);

        recorder.awaitBalancedAndCheck();
        System.out.printf("%d operations, %d holds received; told: %d acquired, %d timed out, %d abandoned, %d failed, %d lost%n",
                operations.get(), holdsReceived.get(), recorder.count(AcquireOutcome.ACQUIRED),
                recorder.count(AcquireOutcome.TIMED_OUT), recorder.count(AcquireOutcome.ABANDONED),
                recorder.count(AcquireOutcome.FAILED), recorder.count(Kind.LOST));
        assertThat(problems).isEmpty();
        assertThat(recorder.count(Kind.STARTED)).as("acquires told started, one per operation").isEqualTo(operations.get());
        assertThat(recorder.count(Kind.ENDED)).as("acquires told ended").isEqualTo(operations.get());
        assertThat(recorder.count(AcquireOutcome.ACQUIRED)).as("grants told")
                .isGreaterThanOrEqualTo(holdsReceived.get()).isEqualTo(recorder.count(Kind.RELEASED) + recorder.count(Kind.LOST));
        assertThat(holdsReceived.get()).as("holds the callers got").isPositive();
        assertThat(Invariants.violations() - violationsBefore).as("broken state-machine invariants").isZero();
    }

    private static Optional<Hold> oneAcquire(DistributedLock lock, Random random) throws Exception {
        switch (random.nextInt(3)) {
            case 0:
                return lock.tryAcquire();
            case 1:
                return lock.tryAcquire(WAITS[random.nextInt(WAITS.length)]);
            default: {
                CompletableFuture<Hold> f = lock.acquireAsync(WAITS[random.nextInt(WAITS.length)]);
                if (random.nextInt(3) == 0) {
                    f.cancel(false);
                }
                try {
                    return Optional.of(f.get(30, TimeUnit.SECONDS));
                } catch (ExecutionException e) {
                    throw (Exception) e.getCause();
                }
            }
        }
    }
}
