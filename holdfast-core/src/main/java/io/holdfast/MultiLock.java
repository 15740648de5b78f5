package io.holdfast;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Several named locks taken together, all or nothing: {@code holdfast.multiLock("accounts/7", "accounts/9")}.
 * A handle is cheap and thread-safe; every acquire takes a new {@link MultiHold}. It works on every backend,
 * because each part is an ordinary lock of that name: it excludes plain {@link DistributedLock}s and other
 * multi-locks of the same name, with its own lease, renewal and fencing token.
 *
 * <p>Guarantees:
 * <ul>
 * <li><b>All or nothing.</b> An acquire returns a hold on every name, or holds none of them: the parts already
 *     taken are released when a later part is busy, the wait runs out, the store fails, or the wait is
 *     interrupted, cancelled or ended by the client's close.</li>
 * <li><b>No deadlock between multi-locks.</b> The parts are taken one at a time in one global order, ascending
 *     by name ({@link String#compareTo}), whatever order they were given in, so two multi-locks over overlapping
 *     names never wait for each other in a cycle. (Code that holds a plain lock while it waits for a multi-lock,
 *     or the other way round, is outside this guarantee, as with any two locks taken in different orders.)</li>
 * <li><b>One deadline.</b> A timed wait's limit covers all parts together: each part waits only for what is left
 *     of it. Each part makes at least one attempt, so free locks are taken however short the wait, and the
 *     call returns at most one store call per part still to take after the wait runs out.</li>
 * <li><b>Never a lost part.</b> A part taken early may be lost while later ones are awaited (an explicit lease
 *     without renewal that runs out, a force-release); the acquire checks every part before it returns, and if
 *     one was lost it gives every part back and takes them again in order, within the same deadline (past it,
 *     the acquire times out holding nothing).</li>
 * <li><b>Released together, lost together.</b> See {@link MultiHold}.</li>
 * </ul>
 *
 * <p>A multi-lock has 1 to {@link #MAX_NAMES} distinct valid names ({@link LockNames}); more names, a name given
 * twice, or an invalid name are refused with an {@link IllegalArgumentException} saying what is allowed.
 */
public interface MultiLock {

    /**
     * The most names one multi-lock takes: the parts are taken one store round trip after another and each keeps
     * its own lease, so a larger set belongs under a coarser lock name.
     */
    int MAX_NAMES = 64;

    /** The names, ascending: the order in which the parts are taken. */
    List<String> names();

    /**
     * Takes every part if each is free now, without waiting (one store round trip per part taken, and one
     * release per part given back if a later one is busy).
     *
     * @return the hold, or empty if any part is held by another owner (then nothing is held)
     * @throws StoreUnavailableException if the store cannot be reached (nothing is then held)
     */
    Optional<MultiHold> tryAcquire();

    /**
     * Takes every part, waiting up to {@code wait} for all of them together.
     *
     * @return the hold, or empty if the wait ran out (nothing is then held)
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    Optional<MultiHold> tryAcquire(Duration wait) throws InterruptedException;

    /**
     * Takes every part, waiting up to {@code wait} for all of them together.
     *
     * @throws LockTimeoutException if the wait ran out, naming the part that was still busy; nothing is then held
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    MultiHold acquire(Duration wait) throws InterruptedException;

    /**
     * Takes every part, waiting as long as it takes.
     *
     * @throws InterruptedException if interrupted while waiting; nothing is then held
     */
    MultiHold acquire() throws InterruptedException;

    /**
     * Takes every part without blocking the caller: the future completes with the hold, or with a
     * {@link LockTimeoutException} once {@code wait} runs out. Any completion by the caller (cancel, complete,
     * {@code orTimeout}) abandons the wait and releases every part taken so far, on the client's I/O pool, right
     * after (never on the thread that completed the future), and a hold completed concurrently is released, never
     * leaked.
     */
    CompletableFuture<MultiHold> acquireAsync(Duration wait);
}
