package io.holdfast;

/**
 * A failure that concerns the store as a whole, not one lock: it names the backend and the address the
 * client tried (without credentials). See {@link StoreUnavailableException} (transient: the store could not
 * be reached or did not answer) and {@link StoreConfigurationException} (permanent until the URI or the
 * store's set-up changes).
 */
public abstract class StoreException extends HoldfastException {
    private static final long serialVersionUID = 1L;
    private final String backend;
    private final String address;

    protected StoreException(String backend, String address, String message, Throwable cause) {
        super(message, cause);
        this.backend = backend;
        this.address = address;
    }

    /** The backend, for example {@code postgresql}. */
    public String backend() {
        return backend;
    }

    /** The address the client tried, without credentials. */
    public String address() {
        return address;
    }
}
