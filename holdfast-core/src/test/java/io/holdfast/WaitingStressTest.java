package io.holdfast;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A randomized stress test of the core's state machines against the in-memory store: threads of several
 * clients mix every way a wait can start and end (no wait, waits from 1 µs to 300 ms, async waits that
 * the caller cancels, completes or times out itself, interrupts, re-entry) while the store adds latency,
 * outages and lost replies; at the end, clients close with waits still running. Each run is seeded (the
 * seed is in the test name) and bounded in operations and time.
 *
 * <p>Checked: never two holders inside at once; every hold handed to a caller is valid on arrival; every
 * call and future ends within its wait plus a bound; no invariant of a state machine breaks; and once the
 * outage ends and every caller is done, the store is left with no holder and no queued owner; and the clients'
 * {@link LockListener} heard every acquire end once and every hold end once, in order.
 */
class WaitingStressTest {
    private static final Duration[] WAITS = {
        Duration.ZERO, Duration.ofNanos(1_000), Duration.ofMillis(1), Duration.ofMillis(20), Duration.ofMillis(300)};

    @ParameterizedTest(name = "queues={0} notifies={1} seed={2}")
    @CsvSource({"false,false,1", "false,true,2", "true,true,3", "true,false,4", "false,true,5", "true,true,6"})
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void randomWaitsEndAndLeaveNothingBehind(boolean queues, boolean notifies, long seed) throws Exception {
        long violationsBefore = Invariants.violations();
        InMemoryStore store = new InMemoryStore(queues, notifies);
        store.latencyMicros = 400;
        store.failBefore = 0.03;
        store.failAfter = 0.03;
        RecordingListener recorder = new RecordingListener();
        List<Holdfast> clients = List.of(store.client(List.of(recorder)), store.client(List.of(recorder)),
                store.client(List.of(recorder)));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger acquired = new AtomicInteger();
        AtomicLong problems = new AtomicLong();
        ConcurrentLinkedQueue<String> report = new ConcurrentLinkedQueue<>();
        ScheduledExecutorService interrupter = Executors.newSingleThreadScheduledExecutor();
        int threads = 12;
        List<Thread> workers = new ArrayList<>();
        long endAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        for (int t = 0; t < threads; t++) {
            Random random = new Random(seed * 1000 + t);
            Holdfast client = clients.get(t % clients.size());
            Thread worker = new Thread(() -> {
                for (int op = 0; op < 400 && System.nanoTime() - endAt < 0; op++) {
                    try {
                        Optional<Hold> hold = oneWait(client.lock("job"), random, interrupter);
                        if (hold.isPresent()) {
                            acquired.incrementAndGet();
                            use(hold.get(), random, inside, problems, report);
                        }
                    } catch (InterruptedException e) {
                        Thread.interrupted();
                    } catch (LockTimeoutException | StoreUnavailableException e) {
                        // outcomes the contract allows under injected outages
                    } catch (Throwable e) {
                        problems.incrementAndGet();
                        report.add("op failed: " + e);
                    }
                }
            }, "stress-" + t);
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join(60_000);
            assertThat(worker.isAlive()).as("worker %s still running 60 s after its last operation was due", worker.getName()).isFalse();
        }
        store.failBefore = 0;
        store.failAfter = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!store.leftovers().isEmpty() && System.nanoTime() - until < 0) {
            Thread.sleep(20);
        }
        assertThat(store.leftovers()).as("holders and queued owners left once every caller was done").isEmpty();
        // Close with waits in flight: every one of them ends.
        List<CompletableFuture<Hold>> late = new ArrayList<>();
        Hold blocker = clients.get(0).lock("job").acquire(Duration.ofSeconds(10));
        for (Holdfast client : clients) {
            late.add(client.lock("job").acquireAsync(Duration.ofSeconds(30)));
        }
        for (Holdfast client : clients) {
            client.close();
        }
        for (CompletableFuture<Hold> f : late) {
            try {
                Hold got = f.get(10, TimeUnit.SECONDS); // granted before its client closed (another's close freed it)
                if (got.isValid()) {
                    problems.incrementAndGet();
                    report.add("a hold still valid after its client closed");
                }
            } catch (ExecutionException e) {
                // ended by the close, as it should
            } catch (TimeoutException e) {
                problems.incrementAndGet();
                report.add("a wait still running 10 s after its client closed");
            }
        }
        assertThat(blocker.isValid()).isFalse();
        interrupter.shutdownNow();
        System.out.printf("queues=%s notifies=%s seed=%d: %d acquisitions, %d store attempts%n",
                queues, notifies, seed, acquired.get(), store.attempts.get());
        assertThat(report).as("problems").isEmpty();
        assertThat(problems.get()).isZero();
        assertThat(acquired.get()).as("acquisitions").isPositive();
        assertThat(Invariants.violations() - violationsBefore).as("broken state-machine invariants").isZero();
        recorder.awaitBalancedAndCheck();
    }

    /** One wait of a random kind; a hold if it got one. */
    private static Optional<Hold> oneWait(DistributedLock lock, Random random, ScheduledExecutorService interrupter)
            throws InterruptedException, ExecutionException, TimeoutException {
        Duration wait = WAITS[random.nextInt(WAITS.length)];
        switch (random.nextInt(5)) {
            case 0:
                return lock.tryAcquire();
            case 1:
                return bounded(lock, wait);
            case 2: {
                Thread me = Thread.currentThread();
                var interrupt = interrupter.schedule(me::interrupt, random.nextInt(3_000), TimeUnit.MICROSECONDS);
                try {
                    return bounded(lock, wait);
                } finally {
                    interrupt.cancel(false);
                    Thread.interrupted();
                }
            }
            default: {
                CompletableFuture<Hold> f = lock.acquireAsync(wait);
                int action = random.nextInt(4);
                if (action == 0) {
                    f.cancel(false);
                } else if (action == 1) {
                    f.complete(null);
                } else if (action == 2) {
                    f = f.orTimeout(random.nextInt(5) + 1, TimeUnit.MILLISECONDS);
                }
                try {
                    return Optional.ofNullable(f.get(wait.toMillis() + 15_000, TimeUnit.MILLISECONDS));
                } catch (InterruptedException e) {
                    if (!f.cancel(false) && !f.isCompletedExceptionally() && f.getNow(null) != null) {
                        f.getNow(null).close(); // a stray interrupt of an earlier round: hold nothing
                    }
                    throw e;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof RuntimeException re) {
                        throw re;
                    }
                    return Optional.empty(); // the caller's own time-out
                } catch (java.util.concurrent.CancellationException e) {
                    return Optional.empty();
                }
            }
        }
    }

    /** tryAcquire(wait) on this thread, which must return within the wait plus a bound. */
    private static Optional<Hold> bounded(DistributedLock lock, Duration wait) throws InterruptedException {
        long start = System.nanoTime();
        Optional<Hold> hold = lock.tryAcquire(wait);
        long took = System.nanoTime() - start;
        if (took > wait.toNanos() + TimeUnit.SECONDS.toNanos(15)) {
            throw new AssertionError("tryAcquire(" + wait + ") took " + TimeUnit.NANOSECONDS.toMillis(took) + " ms");
        }
        return hold;
    }

    private static void use(Hold hold, Random random, AtomicInteger inside, AtomicLong problems,
                            ConcurrentLinkedQueue<String> report) throws InterruptedException {
        if (!hold.isValid()) {
            problems.incrementAndGet();
            report.add("a hold arrived invalid: " + hold);
        }
        if (inside.incrementAndGet() != 1) {
            problems.incrementAndGet();
            report.add("two holders inside at once");
        }
        try {
            if (random.nextInt(4) == 0) {
                hold.reenter().close();
            }
            Thread.sleep(random.nextInt(2));
        } finally {
            inside.decrementAndGet();
            hold.close();
        }
    }
}
