package io.holdfast;

/** A hold was lost (or used after its release) while its owner still relied on it. */
public class LockLostException extends HoldfastException {
    private static final long serialVersionUID = 1L;

    public LockLostException(String message) {
        super(message);
    }
}
