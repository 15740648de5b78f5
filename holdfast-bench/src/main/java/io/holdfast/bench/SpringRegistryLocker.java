package io.holdfast.bench;

import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * A {@link Locker} over a Spring Integration {@link LockRegistry} (JDBC or Redis), used as an application
 * would: {@code registry.obtain(name).tryLock(wait)}, then {@code unlock()} on the same thread; renewal (the
 * registries have no schedule of their own unless given a task scheduler) is {@code registry.renewLock(name)}.
 */
final class SpringRegistryLocker implements Locker {
    private final LockRegistry registry;
    private final Runnable onClose;

    private record Held(String name, Lock lock) {
    }

    /** @param onClose closes what the registry runs on (its repository or connection factory) */
    SpringRegistryLocker(LockRegistry registry, Runnable onClose) {
        this.registry = registry;
        this.onClose = onClose;
    }

    @Override
    public Object acquire(String lockName, Duration wait) throws InterruptedException {
        Lock lock = registry.obtain(lockName);
        return lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS) ? new Held(lockName, lock) : null;
    }

    @Override
    public void release(Object held) {
        ((Held) held).lock().unlock();
    }

    @Override
    public Object renew(Object held) {
        try {
            ((RenewableLockRegistry) registry).renewLock(((Held) held).name());
            return held;
        } catch (RuntimeException e) {
            return null; // the registry no longer holds it
        }
    }

    @Override
    public void close() {
        onClose.run();
    }
}
