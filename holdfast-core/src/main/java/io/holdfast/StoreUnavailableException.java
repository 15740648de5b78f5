package io.holdfast;

/**
 * The store could not be reached or did not answer in time. Its message names the backend and the
 * address. Nothing is held as a result of the failed call.
 */
public class StoreUnavailableException extends HoldfastException {
    private static final long serialVersionUID = 1L;
    private final String backend;
    private final String address;

    public StoreUnavailableException(String backend, String address, String detail, Throwable cause) {
        super(backend + " store at " + address + " is unavailable: " + detail, cause);
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
