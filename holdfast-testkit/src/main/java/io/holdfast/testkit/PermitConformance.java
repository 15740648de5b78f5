package io.holdfast.testkit;

import io.holdfast.DistributedReadWriteLock;
import io.holdfast.DistributedSemaphore;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import io.holdfast.LockLostException;
import io.holdfast.LockTimeoutException;
import io.holdfast.PermitHold;
import io.holdfast.PermitLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The recipes built on permits, on every backend: semaphores (never more than N permits held, by threads of one
 * client and by two clients, yet more than one holder at once; timed waits that return holding nothing) and
 * read-write locks (never a writer with anyone, tokens that rise across reads and writes, a lost permit that loses
 * the whole hold). Each test is short.
 */
public abstract class PermitConformance extends SharedClientConformance {
    private static final Duration LEASE = Duration.ofSeconds(2);

    /**
     * Two clients, three threads each, take 1 or 2 of a semaphore's 3 permits four times each: at no time are more
     * than 3 permits held, yet at some time more than one holder is inside (each stays a little for company); every
     * acquisition's token is distinct and greater than those of the holders inside before its acquire began; and
     * nothing is left held afterwards.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void aSemaphoreNeverHasMoreThanItsPermitsHeld() throws Exception {
        String name = name("semaphore");
        int permits = 3;
        List<DistributedSemaphore> semaphores = List.of(client().semaphore(name, permits), client().semaphore(name, permits));
        Occupancy inside = new Occupancy();
        ExecutorService threads = executor(6);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            DistributedSemaphore semaphore = semaphores.get(t % 2);
            workers.add(threads.submit(() -> {
                go.await();
                for (int i = 0; i < 4; i++) {
                    int k = 1 + ThreadLocalRandom.current().nextInt(2);
                    long floor = inside.floor();
                    try (PermitHold hold = semaphore.acquire(k, Duration.ofSeconds(60))) {
                        inside.enter(k, hold.fencingToken(), floor);
                        inside.lingerForCompany(50);
                        Thread.sleep(2);
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
        assertThat(inside.mostPermits()).as("permits held at once, at most").isLessThanOrEqualTo(permits);
        assertThat(inside.mostHolders()).as("holders inside at once, at most: a semaphore is not a mutex").isGreaterThan(1);
        assertThat(inside.broken()).as("tokens of acquires begun after another holder came in").isEmpty();
        assertThat(inside.tokens()).as("tokens in entry order").hasSize(24).doesNotHaveDuplicates();
        assertNothingHeld(name, permits);
    }

    /**
     * Two clients, each with one writer and two reader threads, on a read-write lock: never a writer
     * with a reader or another writer, two readers at once when both ask, each write's token greater than the last,
     * and each read's greater than the last write before it.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void aReadWriteLockNeverHasAWriterWithAnyoneAndTokensRise() throws Exception {
        String name = name("rw");
        List<DistributedReadWriteLock> locks = List.of(client().readWriteLock(name, LEASE, true),
                client().readWriteLock(name, LEASE, true));
        try (PermitHold r1 = locks.get(0).readLock().acquire(SOON); PermitHold r2 = locks.get(1).readLock().acquire(SOON)) {
            assertThat(locks.get(0).writeLock().tryAcquire()).as("a write while two clients read").isEmpty();
            assertThat(r2.fencingToken()).isGreaterThan(r1.fencingToken());
        }
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicLong lastWrite = new AtomicLong();
        List<String> broken = Collections.synchronizedList(new ArrayList<>());
        ExecutorService threads = executor(6);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            boolean writer = t < 2;
            PermitLock side = writer ? locks.get(t % 2).writeLock() : locks.get(t % 2).readLock();
            workers.add(threads.submit(() -> {
                go.await();
                for (int i = 0; i < 4; i++) {
                    try (PermitHold hold = side.acquire(Duration.ofSeconds(60))) {
                        AtomicInteger mine = writer ? writers : readers;
                        mine.incrementAndGet();
                        if (writers.get() > 0 && (readers.get() > 0 || writers.get() > 1)) {
                            broken.add((writer ? "a writer" : "a reader") + " with " + writers.get() + " writers and " + readers.get() + " readers inside");
                        }
                        if (hold.fencingToken() <= lastWrite.get()) {
                            broken.add((writer ? "write" : "read") + " token " + hold.fencingToken() + " after write token " + lastWrite.get());
                        }
                        if (writer) {
                            lastWrite.set(hold.fencingToken());
                        }
                        Thread.sleep(2);
                        mine.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> worker : workers) {
            worker.get(100, TimeUnit.SECONDS);
        }
        assertThat(broken).as("exclusion and token order").isEmpty();
        assertNothingHeld(name, DistributedReadWriteLock.MAX_READERS);
    }

    /**
     * With 2 of 3 permits held by one client, the other's timed waits for 2 take the free one, wait for another, and
     * return within their wait and a round trip or two, holding nothing: the free permit given back (a third client
     * takes it) and the gate free again. A wait gets the permits once they are released.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    public void timedWaitsForPermitsReturnHoldingNothing() throws Exception {
        String name = name("sem-wait");
        Holdfast holder = client();
        Holdfast waiter = client();
        PermitHold two = holder.semaphore(name, 3).acquire(2, SOON);
        DistributedSemaphore semaphore = waiter.semaphore(name, 3);
        long start = System.nanoTime();
        Optional<PermitHold> none = semaphore.tryAcquire(2, Duration.ofMillis(500));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(none).as("tryAcquire(2, 500ms) with one permit free").isEmpty();
        assertThat(tookMs).as("ms tryAcquire(2, 500ms) took").isBetween(400L, 10_000L);
        assertOnlyTheFreePermitIsFree(name);
        assertThatThrownBy(() -> semaphore.acquire(2, Duration.ofMillis(300))).isInstanceOf(LockTimeoutException.class)
                .hasMessageContaining("none is held");
        assertOnlyTheFreePermitIsFree(name);
        assertThat(semaphore.tryAcquire(2)).as("tryAcquire(2) with one permit free").isEmpty();
        assertOnlyTheFreePermitIsFree(name);
        two.close();
        try (PermitHold hold = semaphore.acquire(3, SOON)) {
            assertThat(hold.fencingToken()).isGreaterThan(two.fencingToken());
        }
    }

    /** Two permits held, the gate free, and the third permit free: a third client takes it at once. */
    private void assertOnlyTheFreePermitIsFree(String name) {
        Holdfast look = client();
        long held = 0;
        for (int i = 0; i < 3; i++) {
            held += look.admin().status(name + "#permit-" + i).filter(LockInfo::held).isPresent() ? 1 : 0;
        }
        assertThat(held).as("permits of %s held after the wait returned", name).isEqualTo(2);
        assertThat(look.admin().status(name + "#gate").map(LockInfo::held)).as("the gate after the wait").isNotEqualTo(Optional.of(true));
        try (PermitHold third = look.semaphore(name, 3).tryAcquire(1)
                .orElseThrow(() -> new AssertionError("the free permit of " + name + " was not given back"))) {
            assertThat(third.permits()).isEqualTo(1);
        }
    }

    /**
     * A write hold whose permit an operator force-releases is lost as a whole: the listener hears of it, checkValid()
     * and close() throw, close() gives back the other permits, and the next write gets a greater token.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    public void aForceReleasedPermitLosesTheWholeHold() throws Exception {
        String name = name("rw-lost");
        Holdfast holder = client();
        Holdfast operator = client();
        PermitHold write = holder.readWriteLock(name, LEASE, true).writeLock().acquire(SOON);
        CountDownLatch lost = new CountDownLatch(1);
        write.onLost((permit, reason) -> lost.countDown());
        assertThat(operator.admin().forceRelease(name + "#permit-1")).isTrue();
        assertThat(lost.await(30, TimeUnit.SECONDS)).as("told of the loss within 30 s").isTrue();
        assertThat(write.isValid()).isFalse();
        assertThatThrownBy(write::checkValid).isInstanceOf(LockLostException.class).hasMessageContaining(name + "#permit-1");
        assertThatThrownBy(write::close).isInstanceOf(LockLostException.class);
        try (PermitHold next = operator.readWriteLock(name, LEASE, true).writeLock().tryAcquire()
                .orElseThrow(() -> new AssertionError("close() left a permit of " + name + " held"))) {
            assertThat(next.fencingToken()).isGreaterThan(write.fencingToken());
        }
    }

    private void assertNothingHeld(String name, int permits) {
        Holdfast look = client();
        for (int i = 0; i < permits; i++) {
            assertThat(look.admin().status(name + "#permit-" + i).map(LockInfo::held)).as("permit %d afterwards", i)
                    .isNotEqualTo(Optional.of(true));
        }
    }
}
