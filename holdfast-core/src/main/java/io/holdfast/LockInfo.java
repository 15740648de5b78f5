package io.holdfast;

import java.time.Duration;

/**
 * What the store says about a lock at one moment.
 *
 * @param name the lock name
 * @param held whether an unexpired hold exists
 * @param holder who holds it ({@code host:pid} unless the client set a holder name), or null if free
 * @param ownerId the opaque owner id of the current hold, or null if free
 * @param fencingToken the token of the current hold, or the last token issued if free; 0 if the store keeps no
 *        record of it (ZooKeeper: a free lock's last token was the czxid of a node that no longer exists)
 * @param leaseRemaining time until the lease runs out by the store's clock, or null if free
 */
public record LockInfo(String name, boolean held, String holder, String ownerId, long fencingToken,
                       Duration leaseRemaining) {
}
