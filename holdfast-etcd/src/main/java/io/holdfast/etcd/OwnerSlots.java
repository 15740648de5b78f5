package io.holdfast.etcd;

import io.holdfast.LockInfo;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * The key suffixes of a store's owners: {@code STORE.SLOT}, where {@code STORE} is random per store instance and
 * {@code SLOT} a small number that is used again once the owner that had it is released, so that a lock's keys
 * are drawn from as many names as the store has owners on it at once, not one new name per acquire.
 *
 * <p>Why: etcd keeps a deleted key's name in its in-memory index until the cluster is compacted, and every read of
 * a lock's range (each acquire reads it) walks those deleted names too. A new key name per acquire made every
 * acquire slower, and the server's memory grow, with each acquire ever made on the lock since the last
 * compaction (measured on one member without compaction: server CPU per acquire + release grew by about 0.1 µs per
 * earlier acquire of the same lock, from 1.0 ms to 3.6 ms within a minute at 400 acquires/s).
 *
 * <p>A slot is free again only after its owner's release was answered (the key is then gone); an owner whose release
 * got no answer keeps its slot for good, so a key a background delete may still be after is never another owner's.
 * An owner id this store gave no slot (another store's owner, as {@code status} reports it, or an owner released
 * already) stands for itself: its key is {@code NAME!OWNER}, which no slot of this store can equal. Thread-safe.
 */
final class OwnerSlots {
    /** The slot of one owner, as {@link #end} hands it back: {@code slot} is -1 if it had none. */
    record Ended(String suffix, int slot) {
    }

    private final String store;
    // Guarded by this: (lock name, owner id) -> slot, (lock name, slot) -> owner id, owners per lock name, slots in use.
    private final Map<String, Integer> slots = new HashMap<>();
    private final Map<String, String> owners = new HashMap<>();
    private final Map<String, Integer> perName = new HashMap<>();
    private final BitSet taken = new BitSet();

    OwnerSlots() {
        byte[] random = new byte[9];
        new SecureRandom().nextBytes(random);
        this.store = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    /** The key suffix of {@code ownerId} on lock {@code name}, giving it a free slot if it has none. */
    synchronized String assign(String name, String ownerId) {
        Integer slot = slots.get(id(name, ownerId));
        if (slot == null) {
            slot = taken.nextClearBit(0);
            taken.set(slot);
            slots.put(id(name, ownerId), slot);
            owners.put(id(name, suffix(slot, ownerId)), ownerId);
            perName.merge(name, 1, Integer::sum);
        }
        return suffix(slot, ownerId);
    }

    /** The key suffix of {@code ownerId} on lock {@code name}: its slot's, or the owner id itself if it has none. */
    synchronized String of(String name, String ownerId) {
        Integer slot = slots.get(id(name, ownerId));
        return slot == null ? ownerId : suffix(slot, ownerId);
    }

    /** Takes {@code ownerId}'s slot away (its release is on its way); {@link #free} it once the release is answered. */
    synchronized Ended end(String name, String ownerId) {
        Integer slot = slots.remove(id(name, ownerId));
        if (slot == null) {
            return new Ended(ownerId, -1);
        }
        String suffix = suffix(slot, ownerId);
        owners.remove(id(name, suffix));
        perName.computeIfPresent(name, (n, count) -> count == 1 ? null : count - 1);
        return new Ended(suffix, slot);
    }

    /** The owner on lock {@code name} whose slot's key suffix is {@code suffix}; null if none of this store's has it. */
    synchronized String ownerOf(String name, String suffix) {
        return suffix == null ? null : owners.get(id(name, suffix));
    }

    /** Whether any owner of this store has a slot on lock {@code name} (queued, attempting or holding). */
    synchronized boolean anyOn(String name) {
        return perName.containsKey(name);
    }

    /** The key of an ended owner is gone: its slot may be given to another owner. */
    synchronized void free(Ended ended) {
        if (ended.slot >= 0) {
            taken.clear(ended.slot);
        }
    }

    /** Slots in use (for tests). */
    synchronized int inUse() {
        return taken.cardinality();
    }

    /**
     * {@code STORE.SLOT}, with the role mark of {@code ownerId} (a capital letter right after its last dot, see
     * {@link LockInfo.Role}) between the dot and the slot, so that {@code status} and {@code list}, which show the key's
     * suffix as the owner id, still tell a leader's hold or a read-write lock's read or write from a plain lock's.
     */
    private String suffix(int slot, String ownerId) {
        String mark = LockInfo.Role.of(ownerId) == LockInfo.Role.LOCK ? "" : ownerId.substring(ownerId.lastIndexOf('.') + 1,
                ownerId.lastIndexOf('.') + 2);
        return store + "." + mark + Integer.toString(slot, 36);
    }

    private static String id(String name, String ownerId) {
        return name + LockKeys.SEPARATOR + ownerId;
    }
}
