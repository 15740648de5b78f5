package io.holdfast;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * {@link DistributedReadWriteLock}: a semaphore of {@link #MAX_READERS} permits; a read takes one, a write all. Reads and
 * writes go through two handles on the same locks, which differ only in the role their owner ids mark (for
 * {@code status} and {@code list}).
 */
final class ReadWriteHandle implements DistributedReadWriteLock {
    private final SemaphoreHandle semaphore;
    private final Side read;
    private final Side write;

    private ReadWriteHandle(SemaphoreHandle reads, SemaphoreHandle writes) {
        this.semaphore = reads;
        this.read = new Side(reads, 1, "a read lock of '" + reads.name + "'");
        this.write = new Side(writes, writes.permits(), "the write lock of '" + writes.name + "'");
    }

    /**
     * @throws IllegalArgumentException saying what is allowed, for a bad name or lease
     */
    static ReadWriteHandle of(HoldfastClient client, String name, Duration lease, boolean renew) {
        return new ReadWriteHandle(SemaphoreHandle.of(client, "read-write lock", name, MAX_READERS, lease, renew, LockInfo.Role.READER),
                SemaphoreHandle.of(client, "read-write lock", name, MAX_READERS, lease, renew, LockInfo.Role.WRITER));
    }

    @Override
    public String name() {
        return semaphore.name;
    }

    @Override
    public PermitLock readLock() {
        return read;
    }

    @Override
    public PermitLock writeLock() {
        return write;
    }

    @Override
    public FencedReadWriteLock asReadWriteLock() {
        return new ThreadBoundReadWriteLock(read, write);
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock[" + semaphore.name + ", " + MAX_READERS + " readers on " + semaphore.client.describe() + "]";
    }

    /** A fixed number of the semaphore's permits. */
    static final class Side implements PermitLock {
        private final SemaphoreHandle semaphore;
        private final int permits;
        private final String what;

        Side(SemaphoreHandle semaphore, int permits, String what) {
            this.semaphore = semaphore;
            this.permits = permits;
            this.what = what;
        }

        @Override
        public String name() {
            return semaphore.name;
        }

        @Override
        public int permits() {
            return permits;
        }

        @Override
        public Optional<PermitHold> tryAcquire() {
            return semaphore.tryTake(permits, what);
        }

        @Override
        public Optional<PermitHold> tryAcquire(Duration wait) throws InterruptedException {
            return semaphore.tryTake(permits, wait, what);
        }

        @Override
        public PermitHold acquire(Duration wait) throws InterruptedException {
            return semaphore.take(permits, wait, what);
        }

        @Override
        public PermitHold acquire() throws InterruptedException {
            return semaphore.take(permits, Acquisition.FOREVER, what);
        }

        @Override
        public CompletableFuture<PermitHold> acquireAsync(Duration wait) {
            return semaphore.takeAsync(permits, wait, what);
        }

        /** Waits as long as it takes, through interrupts (the flag is restored). */
        PermitHold acquireUninterruptibly() {
            return semaphore.takeUninterruptibly(permits, what);
        }

        @Override
        public String toString() {
            return what;
        }
    }
}
