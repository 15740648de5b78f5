package io.holdfast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The thread-bound {@link FencedReadWriteLock} view: re-entry counted per thread, a writer that reads downgrades when
 * it unlocks the write lock, no upgrade, a foreign unlock refused, and lock() waiting through interrupts.
 */
class ReadWriteLockViewTest extends PermitFixture {

    private FencedReadWriteLock view(Holdfast client) {
        return client.readWriteLock("rw").asReadWriteLock();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void reentryIsCountedPerThreadAndTheLastUnlockReleases() throws Exception {
        FencedReadWriteLock rw = view(client());
        rw.readLock().lock();
        long token = rw.fencingToken();
        assertThat(rw.readLock().tryLock(1, TimeUnit.SECONDS)).isTrue();
        assertThat(rw.fencingToken()).as("token on re-entry").isEqualTo(token);
        assertThat(heldLocks("rw#permit-")).as("permits held by one thread's two read locks").hasSize(1);
        rw.readLock().unlock();
        assertThat(heldLocks("rw#permit-")).hasSize(1);
        rw.readLock().unlock();
        assertThat(heldLocks("rw#")).isEmpty();
        assertThatThrownBy(() -> rw.readLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(rw::hold).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("holds neither side");

        rw.writeLock().lock();
        rw.writeLock().lock();
        assertThat(heldLocks("rw#permit-")).hasSize(DistributedReadWriteLock.MAX_READERS);
        rw.writeLock().unlock();
        assertThat(rw.hold().isValid()).isTrue();
        rw.writeLock().unlock();
        assertThat(heldLocks("rw#")).isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWriterThatAlsoReadsDowngradesOnItsWriteUnlock() throws Exception {
        FencedReadWriteLock rw = view(client());
        DistributedReadWriteLock other = client().readWriteLock("rw");
        rw.writeLock().lock();
        long token = rw.fencingToken();
        rw.readLock().lock(); // a writer may read: no store call
        assertThat(other.readLock().tryAcquire()).as("another read while this thread writes").isEmpty();
        rw.writeLock().unlock(); // downgrade
        assertThat(rw.fencingToken()).as("token after the downgrade").isEqualTo(token);
        assertThat(rw.hold().permits()).isEqualTo(1);
        try (PermitHold read = other.readLock().tryAcquire().orElseThrow(() -> new AssertionError("a read after the downgrade"))) {
            assertThat(other.writeLock().tryAcquire()).as("a write while the downgraded read holds").isEmpty();
        }
        assertThatThrownBy(() -> rw.writeLock().lock()).as("an upgrade from read to write")
                .isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("cannot upgrade");
        assertThatThrownBy(() -> rw.writeLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);
        rw.readLock().unlock();
        assertThat(heldLocks("rw#")).isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void anotherThreadCannotUnlockAndDoesNotShareTheHold() throws Exception {
        FencedReadWriteLock rw = view(client());
        rw.writeLock().lock();
        CompletableFuture<Throwable> foreign = CompletableFuture.supplyAsync(() -> {
            try {
                rw.writeLock().unlock();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        assertThat(foreign.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("thread-bound");
        CompletableFuture<Boolean> otherRead = CompletableFuture.supplyAsync(() -> rw.readLock().tryLock());
        assertThat(otherRead.get(10, TimeUnit.SECONDS)).as("another thread's tryLock of the read lock while this one writes").isFalse();
        rw.writeLock().unlock();
        assertThat(heldLocks("rw#")).isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void lockWaitsThroughAnInterruptAndRestoresTheFlag() throws Exception {
        FencedReadWriteLock rw = view(client());
        PermitHold write = client().readWriteLock("rw").writeLock().acquire(Duration.ofSeconds(5));
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        CountDownLatch locked = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            Lock read = rw.readLock();
            read.lock();
            interruptedAfter.set(Thread.currentThread().isInterrupted());
            locked.countDown();
            read.unlock();
        });
        reader.start();
        assertThat(eventually(() -> store.holder("rw#gate").isPresent())).as("the reader waits at the gate").isTrue();
        reader.interrupt();
        Thread.sleep(200);
        assertThat(locked.getCount()).as("locked while the writer holds").isOne();
        write.close();
        assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(interruptedAfter.get()).as("interrupt flag after lock()").isTrue();
        reader.join(10_000);
        assertThatThrownBy(() -> rw.readLock().newCondition()).isInstanceOf(UnsupportedOperationException.class);
    }
}
