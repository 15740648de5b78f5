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

    /**
     * What a hold of a lock is for, as its owner id tells: clients of this version mark the owner ids of a leader's
     * hold and of a read-write lock's reads and writes (after the owner id's last {@code .}, a capital letter: L, R, W).
     * Any other owner id (a plain lock, a semaphore's permit, a multi-lock's part, an older client's hold) is
     * {@link #LOCK}.
     */
    public enum Role {
        /** A lock, or a hold whose owner id says nothing more. */
        LOCK(""),
        /** The hold of the leader elected by {@code holdfast.leader(name)}: its token is the leader's term. */
        LEADER("L"),
        /** One of the permit locks of a read of a read-write lock. */
        READER("R"),
        /** One of the permit locks of the write of a read-write lock. */
        WRITER("W");

        private final String tag;

        Role(String tag) {
            this.tag = tag;
        }

        /** The mark in an owner id, right after its last {@code .}; empty for {@link #LOCK}. */
        String tag() {
            return tag;
        }

        /** The role an owner id marks; {@link #LOCK} for null and unmarked ones. */
        public static Role of(String ownerId) {
            int dot = ownerId == null ? -1 : ownerId.lastIndexOf('.');
            if (dot < 0 || dot + 1 >= ownerId.length()) {
                return LOCK;
            }
            String mark = ownerId.substring(dot + 1, dot + 2);
            for (Role r : values()) {
                if (!r.tag.isEmpty() && r.tag.equals(mark)) {
                    return r;
                }
            }
            return LOCK;
        }
    }

    /** What the current hold is for, from its owner id ({@link Role#LOCK} if free or unmarked). */
    public Role role() {
        return Role.of(ownerId);
    }
}
