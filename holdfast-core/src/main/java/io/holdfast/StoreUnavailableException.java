package io.holdfast;

/**
 * The store could not be reached or did not answer in time. Its message names the backend and the
 * address. Nothing is held as a result of the failed call.
 */
public class StoreUnavailableException extends StoreException {
    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String backend, String address, String detail, Throwable cause) {
        super(backend, address, backend + " store at " + address + " is unavailable: " + detail, cause);
    }
}
