package io.holdfast.spi;

/**
 * A hold as the store knows it.
 *
 * @param name the lock name
 * @param ownerId the owner id of the acquisition
 * @param fencingToken its token
 */
public record HoldRef(String name, String ownerId, long fencingToken) {
}
