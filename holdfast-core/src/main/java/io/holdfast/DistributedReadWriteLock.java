package io.holdfast;

/**
 * A read-write lock on every backend: up to {@link #MAX_READERS} readers at once, or one writer;
 * {@code holdfast.readWriteLock("catalog")}. A handle is cheap and thread-safe.
 *
 * <p>It is the {@link DistributedSemaphore} of the same name with {@link #MAX_READERS} permits: a read takes one
 * permit and a write takes them all, so it has the semaphore's guarantees (leased permits renewed while held, all
 * or nothing, loud loss, one deadline) and its names ({@code NAME#gate}, {@code NAME#permit-0} to
 * {@code NAME#permit-15}); do not use the name for a semaphore too. The number of readers is fixed, not a parameter,
 * so that no two clients can disagree on it: a writer takes every permit a reader of any client may hold.
 *
 * <ul>
 * <li><b>Exclusion.</b> Never a writer with a reader or another writer, within the backend's consistency model.</li>
 * <li><b>At most {@value #MAX_READERS} readers at once.</b> A further reader waits (at the gate, holding it, so
 *     everyone else waits behind it) until a reader leaves; {@code tryAcquire()} returns empty.</li>
 * <li><b>No writer starvation.</b> A writer at the gate waits there for the readers inside to leave, keeping each
 *     permit as it frees, and readers that come after it wait behind it; so a read waits whenever a writer waits
 *     ahead of it. Reaching the gate is first come, first served where the store orders waiters (ZooKeeper, etcd) and
 *     among one client's waiters; between clients of other stores it is a race for a lock that each acquire holds for
 *     a few round trips only (see {@link DistributedSemaphore}).</li>
 * <li><b>Tokens.</b> Every read and write gets a fencing token greater than every token issued before for this name:
 *     a reader's is greater than the write it follows. A resource that fences writers keeps the highest write
 *     token it has seen.</li>
 * <li><b>Downgrade.</b> {@link PermitHold#downgrade()} turns a write hold into a read hold with the same token,
 *     without letting another writer in between. There is no upgrade: release the read hold, then take the write
 *     lock (asking for it while holding a read waits for itself).</li>
 * <li><b>Re-entry.</b> Each acquire through {@link #readLock()} or {@link #writeLock()} is a new acquisition; the
 *     thread-bound view, {@link #asReadWriteLock()}, counts re-entry per thread.</li>
 * </ul>
 *
 * <p>Cost: a write takes the gate, the {@value #MAX_READERS} permits (tried concurrently) and releases the gate, and
 * holds {@value #MAX_READERS} leases while it lasts; a read costs what a semaphore's acquire of one permit costs.
 */
public interface DistributedReadWriteLock {

    /**
     * The most readers at once, the same for every client (the permits of the semaphore it is made of): a further
     * reader waits for one to leave.
     */
    int MAX_READERS = 16;

    /**
     * Checks a name as {@link Holdfast#readWriteLock(String)} does, without a client: for tools that check their
     * input before they connect.
     *
     * @throws IllegalArgumentException saying what is allowed
     */
    static void requireValidName(String name) {
        SemaphoreHandle.requireName("read-write lock", name);
    }

    /** The lock's name. */
    String name();

    /** The read side: one permit. */
    PermitLock readLock();

    /** The write side: every permit. */
    PermitLock writeLock();

    /**
     * A {@link java.util.concurrent.locks.ReadWriteLock} view whose holds belong to the calling thread, as
     * {@link java.util.concurrent.locks.ReentrantReadWriteLock}'s do: re-entry is counted per thread, a writer may
     * also lock the read lock, and unlocking its write lock then downgrades it; only the locking thread may unlock.
     * Each call returns a new, independent view.
     */
    FencedReadWriteLock asReadWriteLock();
}
