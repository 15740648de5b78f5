package io.holdfast.bench.shared;

import org.springframework.integration.support.locks.LockRegistry;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * A {@link Locker} over a Spring Integration {@link LockRegistry} (JDBC or Redis), used as an application
 * would: {@code registry.obtain(name).tryLock(wait)}, then {@code unlock()} on the same thread.
 */
final class SpringRegistryLocker implements Locker {
    private final LockRegistry registry;
    private final Runnable onClose;

    /** @param onClose closes what the registry runs on (its repository or connection factory) */
    SpringRegistryLocker(LockRegistry registry, Runnable onClose) {
        this.registry = registry;
        this.onClose = onClose;
    }

    @Override
    public Object acquire(String lockName, Duration wait) throws InterruptedException {
        Lock lock = registry.obtain(lockName);
        return lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS) ? lock : null;
    }

    @Override
    public void release(Object held) {
        ((Lock) held).unlock();
    }

    @Override
    public void close() {
        onClose.run();
    }
}
