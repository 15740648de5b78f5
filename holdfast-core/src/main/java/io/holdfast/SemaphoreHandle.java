package io.holdfast;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * {@link DistributedSemaphore}: a gate lock and one lock per permit, through the public {@link DistributedLock} API
 * only, so every backend's lock guarantees hold for each permit. Also the engine of {@link DistributedReadWriteLock}.
 */
final class SemaphoreHandle implements DistributedSemaphore {
    static final String GATE_SUFFIX = "#gate";
    static final String PERMIT_SUFFIX = "#permit-";

    final HoldfastClient client;
    final String name;
    /** Renewed whatever the permits' lease policy: an acquire may hold it for as long as it waits for permits. */
    final DistributedLock gate;
    final List<DistributedLock> slots;

    private SemaphoreHandle(HoldfastClient client, String name, int permits, Duration lease, boolean renew, LockInfo.Role role) {
        this.client = client;
        this.name = name;
        this.gate = client.lock(name + GATE_SUFFIX, lease, true, role);
        List<DistributedLock> s = new ArrayList<>(permits);
        for (int i = 0; i < permits; i++) {
            s.add(client.lock(name + PERMIT_SUFFIX + i, lease, renew, role));
        }
        this.slots = List.copyOf(s);
    }

    /**
     * A semaphore of {@code permits} permits called {@code name}; {@code kind} names it in messages ("semaphore"); the
     * owner ids of its holds mark {@code role} (a read-write lock's reads and writes).
     *
     * @throws IllegalArgumentException saying what is allowed, for a bad name, number of permits or lease
     */
    static SemaphoreHandle of(HoldfastClient client, String kind, String name, int permits, Duration lease, boolean renew,
                              LockInfo.Role role) {
        requireValid(kind, name, permits);
        return new SemaphoreHandle(client, name, permits, lease, renew, role);
    }

    /** Checks a name and a number of permits; {@code kind} names the thing in messages. */
    static void requireValid(String kind, String name, int permits) {
        requireName(kind, name);
        if (permits < 1 || permits > MAX_PERMITS) {
            throw new IllegalArgumentException(kind + " '" + name + "' cannot have " + permits + " permits; allowed: 1 to " + MAX_PERMITS);
        }
    }

    /** Checks a semaphore's (or read-write lock's) name: a lock name with room for its suffixes. */
    static void requireName(String kind, String name) {
        LockNames.requireValid(name);
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(kind + " name '" + name.substring(0, 40) + "...' is " + name.length()
                    + " characters long; allowed: a lock name of 1 to " + MAX_NAME_LENGTH + " characters, which leaves room for"
                    + " the suffixes of its locks (" + GATE_SUFFIX + ", " + PERMIT_SUFFIX + "0 to " + PERMIT_SUFFIX + (MAX_PERMITS - 1) + ")");
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int permits() {
        return slots.size();
    }

    private int require(int permits) {
        if (permits < 1 || permits > slots.size()) {
            throw new IllegalArgumentException("cannot take " + permits + " permits of semaphore '" + name + "', which has "
                    + slots.size() + "; allowed: 1 to " + slots.size());
        }
        return permits;
    }

    private String describe(int permits) {
        return permits + (permits == 1 ? " permit" : " permits") + " of semaphore '" + name + "'";
    }

    @Override
    public Optional<PermitHold> tryAcquire(int permits) {
        return tryTake(require(permits), describe(permits));
    }

    @Override
    public Optional<PermitHold> tryAcquire(int permits, Duration wait) throws InterruptedException {
        return tryTake(require(permits), wait, describe(permits));
    }

    @Override
    public PermitHold acquire(int permits, Duration wait) throws InterruptedException {
        return take(require(permits), wait, describe(permits));
    }

    @Override
    public PermitHold acquire(int permits) throws InterruptedException {
        return take(require(permits), Acquisition.FOREVER, describe(permits));
    }

    @Override
    public CompletableFuture<PermitHold> acquireAsync(int permits, Duration wait) {
        return takeAsync(require(permits), wait, describe(permits));
    }

    /** Takes the gate and {@code permits} permits if free now; empty otherwise. Never waits for a holder. */
    Optional<PermitHold> tryTake(int permits, String what) {
        Optional<Hold> gateHold = gate.tryAcquire();
        if (gateHold.isEmpty()) {
            return Optional.empty();
        }
        PermitAcquisition acquisition = new PermitAcquisition(this, permits, what, null);
        acquisition.startWith(gateHold.get());
        try {
            return Optional.of(awaitUninterruptibly(acquisition.future));
        } catch (LockTimeoutException e) {
            return Optional.empty();
        }
    }

    Optional<PermitHold> tryTake(int permits, Duration wait, String what) throws InterruptedException {
        Durations.requireWait(wait);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting for " + what);
        }
        if (wait.isZero()) {
            return tryTake(permits, what);
        }
        try {
            return Optional.of(await(begin(permits, wait, what)));
        } catch (LockTimeoutException e) {
            return Optional.empty();
        }
    }

    PermitHold take(int permits, Duration wait, String what) throws InterruptedException {
        Durations.requireWait(wait);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting for " + what);
        }
        if (wait.isZero()) {
            return tryTake(permits, what).orElseThrow(() -> new LockTimeoutException("acquiring " + what
                    + " timed out after 0s: the gate or the permits were busy; none is held"));
        }
        return await(begin(permits, wait, what));
    }

    /** Waits as long as it takes, keeping its place through interrupts (the flag is restored afterwards). */
    PermitHold takeUninterruptibly(int permits, String what) {
        return awaitUninterruptibly(takeAsync(permits, Acquisition.FOREVER, what));
    }

    CompletableFuture<PermitHold> takeAsync(int permits, Duration wait, String what) {
        return begin(permits, wait, what).future;
    }

    private PermitAcquisition begin(int permits, Duration wait, String what) {
        Durations.requireWait(wait);
        client.checkOpen();
        PermitAcquisition acquisition = new PermitAcquisition(this, permits, what, wait);
        acquisition.start();
        return acquisition;
    }

    /**
     * Waits for a started acquire; an interrupt abandons it and returns once nothing is held: the give-back runs on
     * the I/O pool, and this waits for it (through further interrupts).
     */
    private static PermitHold await(PermitAcquisition acquisition) throws InterruptedException {
        CompletableFuture<PermitHold> future = acquisition.future;
        try {
            return future.get();
        } catch (InterruptedException e) {
            if (!future.cancel(false) && !future.isCompletedExceptionally()) {
                HoldfastClient.closeQuietly(future.getNow(null)); // interrupted as it was granted: hold nothing
            }
            acquisition.settled.join(); // uninterruptible; keeps the flag of an interrupt that comes meanwhile
            throw e;
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    private static PermitHold awaitUninterruptibly(CompletableFuture<PermitHold> future) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw unwrap(e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static RuntimeException unwrap(ExecutionException e) {
        if (e.getCause() instanceof RuntimeException re) {
            return re;
        }
        return new HoldfastException("acquiring permits failed", e.getCause());
    }

    @Override
    public String toString() {
        return "DistributedSemaphore[" + name + ", " + slots.size() + " permits on " + client.describe() + "]";
    }
}
