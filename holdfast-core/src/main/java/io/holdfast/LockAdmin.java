package io.holdfast;

import java.util.List;
import java.util.Optional;

/** Operator functions over a store's locks. */
public interface LockAdmin {

    /**
     * The current state of one lock, or empty if the store has never seen that name (or has pruned it).
     */
    Optional<LockInfo> status(String name);

    /**
     * Held locks whose names start with {@code prefix} (empty for all), in name order, at most
     * {@code limit} of them.
     */
    List<LockInfo> list(String prefix, int limit);

    /**
     * Frees the lock whatever its owner. The owner's hold is reported lost at its next renewal (and is
     * invalid at its local deadline at the latest). For operators: a forced release can let two
     * processes act at once, which only a fencing check at the resource catches.
     *
     * @return true if the lock was held and is now free
     */
    boolean forceRelease(String name);
}
