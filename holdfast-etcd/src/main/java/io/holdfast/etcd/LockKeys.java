package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.options.GetOption;

import java.nio.charset.StandardCharsets;

/**
 * The key layout: owner {@code O} of lock {@code N} is the key {@code PREFIX/N!O}, where {@code O} is the owner's
 * slot ({@link OwnerSlots}: reused key names) or, for an owner the store gave no slot, its owner id. The lock's keys are those
 * starting with {@code PREFIX/N!}. The key {@code PREFIX/N} (no separator) records the token of the last hold
 * released through Holdfast, so that a free lock still has a status. The separator {@code !} can appear neither in a lock name nor in an
 * owner id, so the keys of lock {@code a} never include those of lock {@code a/b} (which a {@code /}
 * separator would), and the keys sort by lock name first ({@code !} sorts below every character a name
 * may hold).
 */
final class LockKeys {
    static final char SEPARATOR = '!';
    /** Read of a lock's prefix for its holder: the key with the lowest create revision. */
    static final GetOption LOWEST = GetOption.builder().isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).withLimit(1).build();
    /**
     * Read of a lock's prefix, in the transaction that has just created an owner's key, for that key (the newest)
     * and the one just before it, if any: the owner holds the lock if there is none.
     */
    static final GetOption NEWEST_TWO = GetOption.builder().isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.DESCEND).withLimit(2).build();

    private final String root;

    LockKeys(String prefix) {
        this.root = prefix + "/";
    }

    /** The prefix of every key of this store. */
    ByteSequence all() {
        return bytes(root);
    }

    /** The prefix of the keys of lock names starting with {@code namePrefix}. */
    ByteSequence namesStartingWith(String namePrefix) {
        return bytes(root + namePrefix);
    }

    /** The prefix of the keys of lock {@code name}: its holder and its queued waiters. */
    ByteSequence lock(String name) {
        return bytes(root + name + SEPARATOR);
    }

    /** The key recording the token of the last hold on {@code name} that was released (or force-released). */
    ByteSequence lastToken(String name) {
        return bytes(root + name);
    }

    /** The key of the owner whose key suffix (slot or owner id, see {@link OwnerSlots}) is {@code suffix} on lock {@code name}. */
    ByteSequence owner(String name, String suffix) {
        return bytes(root + name + SEPARATOR + suffix);
    }

    /** Read of a lock's prefix for the key just before (by create revision) a key created at {@code revision}. */
    static GetOption before(long revision) {
        return GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND).withLimit(1).withMaxCreateRevision(revision - 1).build();
    }

    /** The lock name of a key of this store, or null if the key is not one of its lock keys. */
    String nameOf(ByteSequence key) {
        String k = key.toString(StandardCharsets.UTF_8);
        int sep = k.lastIndexOf(SEPARATOR);
        if (!k.startsWith(root) || sep <= root.length()) {
            return null;
        }
        return k.substring(root.length(), sep);
    }

    /** The owner id of a key of this store, or null if the key is not one of its lock keys. */
    String ownerOf(ByteSequence key) {
        String k = key.toString(StandardCharsets.UTF_8);
        int sep = k.lastIndexOf(SEPARATOR);
        if (!k.startsWith(root) || sep <= root.length()) {
            return null;
        }
        return k.substring(sep + 1);
    }

    /** Refuses an owner id that cannot be part of a key. */
    static void requireOwnerId(String ownerId) {
        if (ownerId == null || ownerId.isEmpty() || ownerId.length() > 200 || ownerId.indexOf(SEPARATOR) >= 0
                || ownerId.indexOf('/') >= 0) {
            throw new IllegalArgumentException("owner id '" + ownerId + "' is not allowed; allowed: 1 to 200 characters without '"
                    + SEPARATOR + "' or '/'");
        }
    }

    /** A token as the value of a last-token key. */
    static ByteSequence token(long revision) {
        return bytes(Long.toString(revision));
    }

    static String text(ByteSequence key) {
        return key.toString(StandardCharsets.UTF_8);
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}
