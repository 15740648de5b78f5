package io.holdfast.zookeeper;

import java.util.ArrayList;
import java.util.List;

/**
 * Where an owner's queue node stands in a listing of its lock directory: a pure function of the
 * listing, so the recipe's one decision can be read, and tested, without a server.
 *
 * <p>Every other queue node carrying the same owner id is this owner's too (owner ids are unique per
 * acquisition): a node left by a create whose reply was lost and which a lagging listing did not show.
 * Those are {@link #duplicates()}, to be deleted, and never anyone's predecessor: an owner never waits
 * behind itself.
 *
 * @param state HELD (no other owner's node is lower), WAITING (behind {@link #predecessor()}), or GONE
 *        (the node is not in the listing: deleted, or its create is not in this listing)
 * @param predecessor the next lower node of another owner, if WAITING; else null
 * @param duplicates the owner's other nodes in the listing, lowest first (empty almost always)
 */
record QueuePosition(State state, String predecessor, List<String> duplicates) {

    enum State { HELD, WAITING, GONE }

    /** The position of {@code mine} (a child name such as {@code ~OWNER~0000000007}) in {@code children}. */
    static QueuePosition of(List<String> children, String mine) {
        String prefix = mine.substring(0, mine.length() - 10);
        long sequence = LockNodes.sequence(mine);
        String predecessor = null;
        boolean present = false;
        List<String> duplicates = new ArrayList<>(0);
        for (String c : LockNodes.queue(children)) {
            if (c.equals(mine)) {
                present = true;
            } else if (c.startsWith(prefix)) {
                duplicates.add(c);
            } else if (LockNodes.sequence(c) < sequence) {
                predecessor = c;
            }
        }
        if (!present) {
            return new QueuePosition(State.GONE, null, duplicates);
        }
        return predecessor == null ? new QueuePosition(State.HELD, null, duplicates) : new QueuePosition(State.WAITING, predecessor, duplicates);
    }
}
