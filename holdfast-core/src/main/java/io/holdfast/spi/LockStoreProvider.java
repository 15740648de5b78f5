package io.holdfast.spi;

import java.util.List;

/**
 * Finds a backend from a URI. Registered in {@code META-INF/services/io.holdfast.spi.LockStoreProvider}.
 *
 * <p>{@link io.holdfast.Holdfast#connect(String)} asks the providers on the class path in turn whether they accept
 * the URI, and opens the first that does: a provider class, {@link #schemes()} and {@link #accepts(String)} must stay
 * light (a prefix check, no client-library classes loaded or initialised), so that a URI costs only its own backend's
 * start-up, which matters to a short-lived process such as the {@code holdfast} command.
 */
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
