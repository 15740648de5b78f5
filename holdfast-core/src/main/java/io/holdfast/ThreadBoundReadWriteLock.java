package io.holdfast;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * {@link FencedReadWriteLock}: one hold per thread, with its read and write locks counted. A thread's hold is a
 * write hold while it has write locks, and a read hold (downgraded, same token) once only read locks are left.
 */
final class ThreadBoundReadWriteLock implements FencedReadWriteLock {
    private final ReadWriteHandle.Side read;
    private final ReadWriteHandle.Side write;
    private final ConcurrentHashMap<Thread, Owned> owners = new ConcurrentHashMap<>();
    private final Lock readView;
    private final Lock writeView;

    /** A thread's hold and its counts; touched by that thread only. */
    private static final class Owned {
        final PermitHold hold;
        int reads;
        int writes;

        Owned(PermitHold hold, boolean writing) {
            this.hold = hold;
            this.reads = writing ? 0 : 1;
            this.writes = writing ? 1 : 0;
        }
    }

    ThreadBoundReadWriteLock(ReadWriteHandle.Side read, ReadWriteHandle.Side write) {
        this.read = read;
        this.write = write;
        this.readView = new View(false);
        this.writeView = new View(true);
    }

    @Override
    public Lock readLock() {
        return readView;
    }

    @Override
    public Lock writeLock() {
        return writeView;
    }

    @Override
    public long fencingToken() {
        return hold().fencingToken();
    }

    @Override
    public PermitHold hold() {
        Owned owned = owners.get(Thread.currentThread());
        if (owned == null) {
            throw new IllegalMonitorStateException("thread '" + Thread.currentThread().getName() + "' holds neither side of read-write lock '"
                    + read.name() + "'");
        }
        return owned.hold;
    }

    /** One side of the view. */
    private final class View implements Lock {
        private final boolean writing;
        private final ReadWriteHandle.Side side;

        View(boolean writing) {
            this.writing = writing;
            this.side = writing ? write : read;
        }

        /** Re-enters if the calling thread holds the lock already (a writer may also read); refuses an upgrade. */
        private boolean reentered() {
            Owned owned = owners.get(Thread.currentThread());
            if (owned == null) {
                return false;
            }
            if (writing && owned.writes == 0) {
                throw new IllegalMonitorStateException("thread '" + Thread.currentThread().getName() + "' holds a read lock of '"
                        + side.name() + "' and cannot upgrade it to the write lock (it would wait for itself): unlock the read lock first");
            }
            owned.hold.checkValid();
            if (writing) {
                owned.writes++;
            } else {
                owned.reads++;
            }
            return true;
        }

        private boolean own(Optional<PermitHold> hold) {
            hold.ifPresent(h -> owners.put(Thread.currentThread(), new Owned(h, writing)));
            return hold.isPresent();
        }

        @Override
        public void lock() {
            if (!reentered()) {
                // Not interruptible, as Lock.lock() says: an interrupt keeps the wait, and the flag is restored.
                own(Optional.of(side.acquireUninterruptibly()));
            }
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (!reentered()) {
                own(Optional.of(side.acquire()));
            }
        }

        @Override
        public boolean tryLock() {
            return reentered() || own(side.tryAcquire());
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            return reentered() || own(side.tryAcquire(Duration.ofNanos(Math.max(0, unit.toNanos(time)))));
        }

        @Override
        public void unlock() {
            Thread me = Thread.currentThread();
            Owned owned = owners.get(me);
            if (owned == null || (writing ? owned.writes : owned.reads) == 0) {
                throw new IllegalMonitorStateException("thread '" + me.getName() + "' does not hold " + side + "; this view is"
                        + " thread-bound (use the PermitHold of readLock() or writeLock() to release from another thread)");
            }
            if (writing) {
                owned.writes--;
            } else {
                owned.reads--;
            }
            if (owned.writes == 0 && owned.reads == 0) {
                owners.remove(me);
                owned.hold.close();
            } else if (writing && owned.writes == 0) {
                owned.hold.downgrade(); // the thread reads on, with the same token
            }
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException("distributed locks have no conditions");
        }

        @Override
        public String toString() {
            return "FencedReadWriteLock." + (writing ? "write" : "read") + "Lock[" + side.name() + "]";
        }
    }
}
