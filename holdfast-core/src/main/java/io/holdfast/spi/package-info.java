/**
 * The backend SPI. A backend implements {@link io.holdfast.spi.LockStore} (one attempt, batched renewal,
 * conditional release, optional release notifications, inspection) and registers a
 * {@link io.holdfast.spi.LockStoreProvider} with {@link java.util.ServiceLoader}. Everything else the
 * contract asks for (waiting, re-entry, renewal scheduling, lost-hold detection, the Lock view) lives in
 * the core once.
 */
package io.holdfast.spi;
