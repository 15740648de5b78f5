package io.holdfast;

/**
 * The store answered but refused the client's configuration: a database or role that does not exist, a
 * wrong password, a missing permission. Unlike {@link StoreUnavailableException} this is not transient:
 * retrying with the same URI fails the same way until the URI or the store's set-up is changed. Its
 * message names the backend and the address. Nothing is held as a result of the failed call.
 */
public class StoreConfigurationException extends StoreException {
    private static final long serialVersionUID = 1L;

    public StoreConfigurationException(String backend, String address, String detail, Throwable cause) {
        super(backend, address, backend + " store at " + address + " refused the configuration: " + detail, cause);
    }
}
