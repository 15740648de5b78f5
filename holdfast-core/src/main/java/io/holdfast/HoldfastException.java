package io.holdfast;

/** Base of the exceptions Holdfast throws for store and lock failures. */
public class HoldfastException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public HoldfastException(String message) {
        super(message);
    }

    public HoldfastException(String message, Throwable cause) {
        super(message, cause);
    }
}
