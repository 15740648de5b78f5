package io.holdfast.testkit;

/**
 * A way to cut one client off from a store while the store itself keeps running, so the conformance
 * suite can check that the client notices it has lost its hold before the store frees the lock.
 *
 * <p>Only clients that connect through {@link #clientUri()} are affected; clients on the backend's
 * ordinary URI keep working (and can inspect the store during the outage).
 */
public interface StoreOutage extends AutoCloseable {

    /** The URI a client must connect to in order to be cut off by {@link #begin()}. */
    String clientUri();

    /**
     * Starts the outage: from its return until {@link #end()}, calls from a client on {@link #clientUri()}
     * that need the store fail or hang (and renewals therefore fail).
     */
    void begin();

    /** Ends the outage: clients on {@link #clientUri()} can reach the store again. */
    void end();

    /** Ends the outage if it is still on and frees what the outage used. */
    @Override
    void close();
}
