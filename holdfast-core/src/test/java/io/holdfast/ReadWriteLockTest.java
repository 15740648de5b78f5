package io.holdfast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link DistributedReadWriteLock} against the in-memory store: readers share, a writer excludes everyone, tokens
 * rise across reads and writes, a waiting writer is not starved by a stream of readers, a downgrade keeps the token,
 * and bad input is refused saying what is allowed.
 */
class ReadWriteLockTest extends PermitFixture {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void readersShareAndAWriterExcludesThem() throws Exception {
        DistributedReadWriteLock a = client().readWriteLock("rw");
        DistributedReadWriteLock b = client().readWriteLock("rw");
        assertThat(a.readLock().permits()).isEqualTo(1);
        assertThat(a.writeLock().permits()).isEqualTo(DistributedReadWriteLock.MAX_READERS);
        PermitHold r1 = a.readLock().acquire(Duration.ofSeconds(5));
        PermitHold r2 = b.readLock().tryAcquire().orElseThrow(() -> new AssertionError("a second reader was refused"));
        assertThat(b.writeLock().tryAcquire()).as("a write while two read").isEmpty();
        assertThat(b.writeLock().tryAcquire(Duration.ofMillis(200))).as("a write(200ms) while two read").isEmpty();
        assertThat(heldLocks("rw#permit-")).as("permits held by the two readers").hasSize(2);
        r1.close();
        r2.close();
        try (PermitHold w = b.writeLock().acquire(Duration.ofSeconds(5))) {
            assertThat(w.permits()).isEqualTo(DistributedReadWriteLock.MAX_READERS);
            assertThat(w.fencingToken()).isGreaterThan(r2.fencingToken());
            assertThat(a.readLock().tryAcquire()).as("a read while one writes").isEmpty();
            assertThat(a.writeLock().tryAcquire()).as("a write while one writes").isEmpty();
        }
        assertThat(heldLocks("rw#")).isEmpty();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void neverAWriterWithAnyoneElseAndTokensRiseAcrossReadsAndWrites() throws Exception {
        store.latencyMicros = 200;
        List<DistributedReadWriteLock> locks = List.of(client().readWriteLock("rw"),
                client().readWriteLock("rw"));
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger mostReaders = new AtomicInteger();
        AtomicLong lastWrite = new AtomicLong();
        List<String> broken = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                DistributedReadWriteLock lock = locks.get(t % 2);
                boolean writer = t < 2;
                workers.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < 12; i++) {
                        try (PermitHold hold = (writer ? lock.writeLock() : lock.readLock()).acquire(Duration.ofSeconds(60))) {
                            if (writer) {
                                int w = writers.incrementAndGet();
                                if (w != 1 || readers.get() != 0) {
                                    broken.add("a writer with " + (w - 1) + " writers and " + readers.get() + " readers");
                                }
                                if (hold.fencingToken() <= lastWrite.get()) {
                                    broken.add("write token " + hold.fencingToken() + " after write token " + lastWrite.get());
                                }
                                lastWrite.set(hold.fencingToken());
                                Thread.sleep(2);
                                writers.decrementAndGet();
                            } else {
                                mostReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
                                if (writers.get() != 0) {
                                    broken.add("a reader with a writer");
                                }
                                if (hold.fencingToken() <= lastWrite.get()) {
                                    broken.add("read token " + hold.fencingToken() + " after write token " + lastWrite.get());
                                }
                                for (int w = 0; w < 20 && readers.get() < 2; w++) {
                                    Thread.sleep(1); // a while for another reader to come in: readers share
                                }
                                Thread.sleep(2);
                                readers.decrementAndGet();
                            }
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
        assertThat(broken).as("exclusion and token order broken").isEmpty();
        assertThat(mostReaders.get()).as("readers inside at once, at most: they share").isGreaterThan(1);
        assertThat(heldLocks("rw#")).isEmpty();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWaitingWriterIsNotStarvedByAStreamOfReaders() throws Exception {
        DistributedReadWriteLock readersLock = client().readWriteLock("rw");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger readersInside = new AtomicInteger();
        AtomicInteger readsAfterTheWriterQueued = new AtomicInteger();
        AtomicBoolean writerQueued = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Future<?>> streams = new ArrayList<>();
        try {
            for (int t = 0; t < 3; t++) {
                int offset = t;
                streams.add(pool.submit(() -> {
                    Thread.sleep(7L * offset); // staggered: a reader is always inside
                    while (!stop.get()) {
                        try (PermitHold hold = readersLock.readLock().acquire(Duration.ofSeconds(30))) {
                            readersInside.incrementAndGet();
                            if (writerQueued.get()) {
                                readsAfterTheWriterQueued.incrementAndGet();
                            }
                            Thread.sleep(20);
                            readersInside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            assertThat(eventually(() -> readersInside.get() > 0)).isTrue();
            ScriptedStore writerView = view();
            CompletableFuture<PermitHold> write = client(writerView).readWriteLock("rw").writeLock()
                    .acquireAsync(Duration.ofSeconds(20));
            assertThat(eventually(() -> writerView.attemptedNames.stream().anyMatch(n -> n.startsWith("rw#permit-"))))
                    .as("the writer holds the gate and tries permits").isTrue();
            writerQueued.set(true);
            long start = System.nanoTime();
            try (PermitHold hold = write.get(20, TimeUnit.SECONDS)) {
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(readersInside.get()).as("readers inside with the writer").isZero();
                assertThat(waitedMs).as("ms the writer waited for the readers inside to leave").isLessThan(5_000);
                assertThat(readsAfterTheWriterQueued.get()).as("reads begun after the writer held the gate, at most the 3 inside")
                        .isLessThanOrEqualTo(3);
            }
        } finally {
            stop.set(true);
            for (Future<?> s : streams) {
                s.get(30, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aDowngradedWriteIsAReadWithTheSameToken() throws Exception {
        DistributedReadWriteLock lock = client().readWriteLock("rw");
        DistributedReadWriteLock other = client().readWriteLock("rw");
        PermitHold hold = lock.writeLock().acquire(Duration.ofSeconds(5));
        long token = hold.fencingToken();
        assertThat(other.readLock().tryAcquire()).as("a read before the downgrade").isEmpty();
        hold.downgrade();
        assertThat(hold.fencingToken()).isEqualTo(token);
        assertThat(hold.permits()).isEqualTo(1);
        try (PermitHold reader = other.readLock().tryAcquire().orElseThrow(() -> new AssertionError("a read after the downgrade"))) {
            assertThat(reader.fencingToken()).isGreaterThan(token);
        }
        CompletableFuture<PermitHold> writer = other.writeLock().acquireAsync(Duration.ofSeconds(20));
        Thread.sleep(200);
        assertThat(writer).as("a writer while the downgraded read holds").isNotDone();
        hold.close();
        try (PermitHold w = writer.get(10, TimeUnit.SECONDS)) {
            assertThat(w.fencingToken()).isGreaterThan(token);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aLostPermitOfAWriteLosesTheWrite() throws Exception {
        PermitHold write = client().readWriteLock("rw", Duration.ofMillis(600), true).writeLock().acquire(Duration.ofSeconds(5));
        CountDownLatch lost = new CountDownLatch(1);
        write.onLost((permit, reason) -> lost.countDown());
        assertThat(store.forceRelease("rw#permit-2")).isTrue();
        assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(write::checkValid).isInstanceOf(LockLostException.class).hasMessageContaining("'rw#permit-2'");
        assertThatThrownBy(write::close).isInstanceOf(LockLostException.class);
        assertThat(heldLocks("rw#")).isEmpty();
    }

    @Test
    void badInputIsRefusedSayingWhatIsAllowed() {
        Holdfast client = client();
        assertThat(client.readWriteLock("rw").writeLock().permits()).isEqualTo(DistributedReadWriteLock.MAX_READERS).isEqualTo(16);
        assertThatThrownBy(() -> client.readWriteLock("rw//x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed");
        assertThatThrownBy(() -> client.readWriteLock("r".repeat(191))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("read-write lock name").hasMessageContaining("191 characters long")
                .hasMessageContaining("allowed: a lock name of 1 to 190 characters");
        assertThatThrownBy(() -> DistributedReadWriteLock.requireValidName("r".repeat(191))).as("the same check without a client")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed: a lock name of 1 to 190 characters");
        DistributedReadWriteLock.requireValidName("r".repeat(190));
        assertThatThrownBy(() -> client.readWriteLock("rw", Duration.ofDays(30), true)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.readWriteLock("rw").readLock().acquire(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aReaderOnAnyPermitExcludesEveryClientsWriter() throws Exception {
        DistributedReadWriteLock app = client().readWriteLock("catalog", Duration.ofSeconds(30), true);
        DistributedReadWriteLock cli = client().readWriteLock("catalog");
        Map<String, PermitHold> readerOn = new HashMap<>();
        for (int i = 0; i < 16; i++) {
            List<String> before = heldLocks("catalog#permit-");
            PermitHold reader = cli.readLock().acquire(Duration.ofSeconds(5));
            int expected = i + 1; // a read that waited may give back extra grants just after it returns
            assertThat(eventually(() -> heldLocks("catalog#permit-").size() == expected)).as("permits held by %d readers", expected).isTrue();
            List<String> now = new ArrayList<>(heldLocks("catalog#permit-"));
            now.removeAll(before);
            assertThat(now).as("permits the reader %d took", i).hasSize(1);
            readerOn.put(now.get(0), reader);
        }
        assertThat(app.readLock().tryAcquire()).as("a 17th reader").isEmpty();
        CompletableFuture<PermitHold> seventeenth = app.readLock().acquireAsync(Duration.ofSeconds(20));
        Thread.sleep(200);
        assertThat(seventeenth).as("a 17th reader while 16 read").isNotDone();
        readerOn.remove("catalog#permit-0").close();
        seventeenth.get(10, TimeUnit.SECONDS).close();

        String last = "catalog#permit-15";
        PermitHold lastReader = readerOn.remove(last);
        readerOn.values().forEach(PermitHold::close);
        assertThat(app.writeLock().tryAcquire()).as("a write beside the reader on %s", last).isEmpty();
        assertThat(app.writeLock().tryAcquire(Duration.ofMillis(200))).as("a write(200ms) beside the reader on %s", last).isEmpty();
        lastReader.close();
        try (PermitHold write = app.writeLock().acquire(Duration.ofSeconds(5))) {
            assertThat(heldLocks("catalog#permit-")).as("permits a write holds").hasSize(16);
            assertThat(cli.readLock().tryAcquire()).as("a read beside the write").isEmpty();
        }
    }
}
