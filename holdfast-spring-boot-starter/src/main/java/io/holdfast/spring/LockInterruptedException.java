package io.holdfast.spring;

import io.holdfast.HoldfastException;

/**
 * A {@link Locked} method's caller was interrupted while waiting for the lock, and the method does not declare
 * {@link InterruptedException}. Nothing is held, the method did not run, and the thread's interrupt flag is set.
 */
public class LockInterruptedException extends HoldfastException {
    private static final long serialVersionUID = 1L;

    public LockInterruptedException(String lockName, InterruptedException cause) {
        super("interrupted while waiting for lock '" + lockName + "'", cause);
    }
}
