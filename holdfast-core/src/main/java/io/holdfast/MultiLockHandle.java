package io.holdfast;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/** {@link MultiLock}: one {@link DistributedLock} per name, in ascending name order. */
final class MultiLockHandle implements MultiLock {
    private static final String ALLOWED = "1 to " + MAX_NAMES + " distinct lock names";

    final HoldfastClient client;
    final List<DistributedLock> parts;
    private final List<String> names;

    private MultiLockHandle(HoldfastClient client, List<DistributedLock> parts) {
        this.client = client;
        this.parts = parts;
        this.names = parts.stream().map(DistributedLock::name).toList();
    }

    /**
     * Checks {@code names} (distinct, 1 to {@link #MAX_NAMES}, each valid) and makes a handle per name, in
     * ascending order; {@code client}'s I/O pool gives back the parts of an acquire given up.
     *
     * @throws IllegalArgumentException saying what is allowed
     */
    static MultiLockHandle of(HoldfastClient client, Collection<String> names, Function<String, DistributedLock> lock) {
        if (names == null || names.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one name; allowed: " + ALLOWED);
        }
        if (names.size() > MAX_NAMES) {
            throw new IllegalArgumentException("a multi-lock of " + names.size() + " names is too large; allowed: " + ALLOWED);
        }
        TreeSet<String> sorted = new TreeSet<>();
        for (String name : names) {
            LockNames.requireValid(name);
            if (!sorted.add(name)) {
                throw new IllegalArgumentException("lock name '" + name + "' is given twice in a multi-lock; allowed: " + ALLOWED);
            }
        }
        List<DistributedLock> parts = new ArrayList<>(sorted.size());
        for (String name : sorted) {
            parts.add(lock.apply(name));
        }
        return new MultiLockHandle(client, List.copyOf(parts));
    }

    @Override
    public List<String> names() {
        return names;
    }

    @Override
    public Optional<MultiHold> tryAcquire() {
        List<Hold> taken = new ArrayList<>(parts.size());
        try {
            for (DistributedLock part : parts) {
                Optional<Hold> hold = part.tryAcquire();
                if (hold.isEmpty()) {
                    releaseQuietly(taken, null);
                    return Optional.empty();
                }
                taken.add(hold.get());
            }
        } catch (RuntimeException e) {
            releaseQuietly(taken, e);
            throw e;
        }
        return Optional.of(PartsHold.of(taken));
    }

    @Override
    public Optional<MultiHold> tryAcquire(Duration wait) throws InterruptedException {
        try {
            return Optional.of(acquire(wait));
        } catch (LockTimeoutException e) {
            return Optional.empty();
        }
    }

    @Override
    public MultiHold acquire(Duration wait) throws InterruptedException {
        Durations.requireWait(wait);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting for " + this);
        }
        if (wait.isZero()) {
            return tryAcquire().orElseThrow(() -> MultiAcquisition.timeout(names, null, wait));
        }
        return await(begin(wait));
    }

    @Override
    public MultiHold acquire() throws InterruptedException {
        return acquire(Acquisition.FOREVER);
    }

    @Override
    public CompletableFuture<MultiHold> acquireAsync(Duration wait) {
        return begin(wait).future;
    }

    private MultiAcquisition begin(Duration wait) {
        Durations.requireWait(wait);
        MultiAcquisition acquisition = new MultiAcquisition(this, wait);
        acquisition.start();
        return acquisition;
    }

    /**
     * Waits for a started acquisition; an interrupt abandons it and returns once nothing is held: the give-back
     * runs on the I/O pool, and this waits for it (through further interrupts).
     */
    private MultiHold await(MultiAcquisition acquisition) throws InterruptedException {
        CompletableFuture<MultiHold> future = acquisition.future;
        try {
            return future.get();
        } catch (InterruptedException e) {
            if (!future.cancel(false) && !future.isCompletedExceptionally()) {
                HoldfastClient.closeQuietly(future.getNow(null)); // interrupted as it was granted: hold nothing
            }
            acquisition.settled.join(); // uninterruptible; keeps the flag of an interrupt that comes meanwhile
            throw e;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new HoldfastException("acquiring " + this + " failed", e.getCause());
        }
    }

    /**
     * Releases the parts taken so far of an acquire that will not complete; a failure to release is added to
     * {@code cause} (if any), and the lease frees that part.
     */
    static void releaseQuietly(List<Hold> taken, RuntimeException cause) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).close();
            } catch (RuntimeException e) {
                if (cause != null) {
                    cause.addSuppressed(e);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "MultiLock" + names;
    }
}
