package io.holdfast;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A counting semaphore whose permits are leased: {@code holdfast.semaphore("exports", 4)}. A handle is cheap and
 * thread-safe; every acquire takes a new {@link PermitHold}. It works on every backend, because each permit is an
 * ordinary lock, so a permit has what a lock hold has: a lease renewed while held, recovery within the lease when
 * its holder dies, loud loss.
 *
 * <p>How it is made: permit {@code i} is the lock {@code NAME#permit-i}, and every acquire first takes the lock
 * {@code NAME#gate}, takes its permits while holding it, then releases it. Those names belong to the semaphore (a
 * {@link DistributedReadWriteLock} of the same name is made of the same locks: do not use a name for both).
 *
 * <p><b>Every client must give a name the same number of permits.</b> Nothing checks it: clients that disagree
 * share the first permits, so up to the largest number given are held at once, more than the smaller number
 * promises. Keep the number in one place (a constant, a shared setting) for every client of the name.
 *
 * <p>Guarantees:
 * <ul>
 * <li><b>At most {@link #permits()} permits held at once</b> across every client that uses the same name with the
 *     same number of permits, within the backend's consistency model.</li>
 * <li><b>All or nothing.</b> An acquire of k permits returns a hold of k, or holds none: permits taken are given
 *     back when the wait runs out, the store fails, or the wait is interrupted, cancelled or ended by the client's
 *     close. A blocking acquire returns once they are given back; an async one gives them back on the client's I/O
 *     pool right after the future's completion.</li>
 * <li><b>Never a hold with a lost permit.</b> A permit lost while the others are awaited (its lease ran out
 *     without renewal, or it was force-released) is not handed over: the acquire gives back every permit and takes
 *     them again, under the same gate and deadline.</li>
 * <li><b>Nobody passes the acquirer at the gate.</b> The acquirer holding the gate takes each permit it needs as it
 *     frees and keeps it, while everyone else waits for the gate, so a request for many permits is not overtaken by a
 *     stream of requests for fewer. The gate is an ordinary lock, waited for as one: without a herd, in the store's
 *     order where it orders waiters (ZooKeeper, etcd), in arrival order among one client's waiters, and between
 *     clients of other stores as a race that each acquire holds the gate for a few round trips only.</li>
 * <li><b>A fencing token per acquisition</b>: the gate hold's token, greater than every token issued before by
 *     any acquire of this semaphore, so tokens follow the order of acquisitions.</li>
 * <li><b>One deadline.</b> A timed wait's limit covers the gate and the permits together; free permits are taken
 *     however short it is (even zero), as by {@link #tryAcquire(int)}.</li>
 * </ul>
 *
 * <p>Asking for permits while holding some of the same semaphore can wait for itself, holding the gate: until the
 * wait runs out, or forever with {@link #acquire(int)}. Give them back first.
 *
 * <p>Cost: an acquire of k free permits takes the gate, k permits (tried concurrently when several are wanted) and
 * releases the gate: three sequential store round trips at least; a release takes one per permit. Each permit held
 * is a lease the client renews (in its batches).
 *
 * <p>Names: a valid lock name ({@link LockNames}) of at most {@link #MAX_NAME_LENGTH} characters, leaving room for
 * the suffixes; permits 1 to {@link #MAX_PERMITS}. Anything else is refused with an {@link IllegalArgumentException}
 * saying what is allowed.
 */
public interface DistributedSemaphore {

    /** The most permits a semaphore has: each is a lock of its own. */
    int MAX_PERMITS = 64;

    /** The longest semaphore name: {@link LockNames#MAX_LENGTH} less the longest suffix, {@code #permit-63}. */
    int MAX_NAME_LENGTH = LockNames.MAX_LENGTH - ("#permit-" + (MAX_PERMITS - 1)).length();

    /**
     * Checks a name and a number of permits as {@link Holdfast#semaphore(String, int)} does, without a client: for
     * tools that check their input before they connect.
     *
     * @throws IllegalArgumentException saying what is allowed
     */
    static void requireValid(String name, int permits) {
        SemaphoreHandle.requireValid("semaphore", name, permits);
    }

    /** The semaphore's name. */
    String name();

    /** How many permits it has. */
    int permits();

    /**
     * Takes {@code permits} permits if they are free now, without waiting. It needs the gate too, so it returns
     * empty while another acquire of this semaphore is at the gate: for the few round trips any acquire takes, and
     * for as long as one waits for permits (so it never overtakes a waiter).
     *
     * @return the hold, or empty if the gate or the permits were busy (nothing is then held)
     * @throws IllegalArgumentException unless {@code permits} is 1 to {@link #permits()}
     * @throws StoreUnavailableException if the store cannot be reached (nothing is then held)
     */
    Optional<PermitHold> tryAcquire(int permits);

    /**
     * Takes {@code permits} permits, waiting up to {@code wait} for them.
     *
     * @return the hold, or empty if the wait ran out (nothing is then held)
     * @throws IllegalArgumentException unless {@code permits} is 1 to {@link #permits()}
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    Optional<PermitHold> tryAcquire(int permits, Duration wait) throws InterruptedException;

    /**
     * Takes {@code permits} permits, waiting up to {@code wait} for them.
     *
     * @throws LockTimeoutException if the wait ran out; nothing is then held
     * @throws IllegalArgumentException unless {@code permits} is 1 to {@link #permits()}
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    PermitHold acquire(int permits, Duration wait) throws InterruptedException;

    /**
     * Takes {@code permits} permits, waiting as long as it takes.
     *
     * @throws IllegalArgumentException unless {@code permits} is 1 to {@link #permits()}
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    PermitHold acquire(int permits) throws InterruptedException;

    /**
     * Takes {@code permits} permits without blocking the caller: the future completes with the hold, or with a
     * {@link LockTimeoutException} once {@code wait} runs out. Any completion by the caller (cancel, complete,
     * {@code orTimeout}) abandons the wait and gives back every permit taken so far, and the gate: on the client's
     * I/O pool, right after, never on the thread that completed the future.
     *
     * @throws IllegalArgumentException unless {@code permits} is 1 to {@link #permits()}
     */
    CompletableFuture<PermitHold> acquireAsync(int permits, Duration wait);
}
