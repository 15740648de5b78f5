package io.holdfast;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/** {@link FencedLock}: holds owned by threads, counted per thread. */
final class ThreadBoundLock implements FencedLock {
    private final LockHandle handle;
    private final ConcurrentHashMap<Thread, Owned> owners = new ConcurrentHashMap<>();

    private static final class Owned {
        final Hold hold;
        int count = 1;

        Owned(Hold hold) {
            this.hold = hold;
        }
    }

    ThreadBoundLock(LockHandle handle) {
        this.handle = handle;
    }

    /** Re-enters if the calling thread holds the lock. */
    private boolean reentered() {
        Owned owned = owners.get(Thread.currentThread());
        if (owned == null) {
            return false;
        }
        owned.hold.checkValid();
        owned.count++;
        return true;
    }

    private void own(Hold hold) {
        owners.put(Thread.currentThread(), new Owned(hold));
    }

    @Override
    public void lock() {
        if (reentered()) {
            return;
        }
        // Not interruptible, as Lock.lock() says: an interrupt keeps the wait and its place in line, and
        // the flag is restored once the lock is taken.
        own(handle.acquireUninterruptibly());
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (reentered()) {
            return;
        }
        own(handle.acquire());
    }

    @Override
    public boolean tryLock() {
        if (reentered()) {
            return true;
        }
        Optional<Hold> hold = handle.tryAcquire();
        hold.ifPresent(this::own);
        return hold.isPresent();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (reentered()) {
            return true;
        }
        Optional<Hold> hold = handle.tryAcquire(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
        hold.ifPresent(this::own);
        return hold.isPresent();
    }

    @Override
    public void unlock() {
        Thread me = Thread.currentThread();
        Owned owned = owners.get(me);
        if (owned == null) {
            throw new IllegalMonitorStateException("thread '" + me.getName() + "' does not hold lock '" + handle.name
                    + "'; this Lock view is thread-bound (use DistributedLock's Hold to release from another thread)");
        }
        if (--owned.count == 0) {
            owners.remove(me);
            owned.hold.close();
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("distributed locks have no conditions");
    }

    @Override
    public long fencingToken() {
        return hold().fencingToken();
    }

    @Override
    public Hold hold() {
        Owned owned = owners.get(Thread.currentThread());
        if (owned == null) {
            throw new IllegalMonitorStateException("thread '" + Thread.currentThread().getName() + "' does not hold lock '" + handle.name + "'");
        }
        return owned.hold;
    }

    @Override
    public String toString() {
        return "FencedLock[" + handle.name + "]";
    }
}
