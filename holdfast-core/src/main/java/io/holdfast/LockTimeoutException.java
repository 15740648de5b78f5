package io.holdfast;

import java.time.Duration;

/** A lock was not acquired within the wait the caller allowed. Nothing is held. */
public class LockTimeoutException extends HoldfastException {
    private static final long serialVersionUID = 1L;

    public LockTimeoutException(String lockName, Duration wait) {
        super("lock '" + lockName + "' was not acquired within " + Durations.format(wait));
    }

    /** For waits on more than one lock (a {@link MultiLock}), whose message names them itself. */
    LockTimeoutException(String message) {
        super(message);
    }
}
