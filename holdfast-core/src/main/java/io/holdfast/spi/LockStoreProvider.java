package io.holdfast.spi;

import java.util.List;

/** Finds a backend from a URI. Registered in {@code META-INF/services/io.holdfast.spi.LockStoreProvider}. */
public interface LockStoreProvider {

    /** URI prefixes this provider accepts, for error messages, for example {@code jdbc:postgresql:}. */
    List<String> schemes();

    /** Whether this provider handles {@code uri}. */
    boolean accepts(String uri);

    /**
     * Opens a store.
     *
     * @throws IllegalArgumentException if the URI is malformed, saying what is expected
     * @throws io.holdfast.StoreUnavailableException if the store cannot be reached
     */
    LockStore open(String uri);
}
