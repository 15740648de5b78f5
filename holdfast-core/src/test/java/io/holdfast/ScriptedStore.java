package io.holdfast;

import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.StoreTraits;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * One client's view of a shared {@link InMemoryStore}, with what the recipes' tests script on top: the names
 * of the attempts in the order they were made, an error per attempt on a name, and a cut-off (every call
 * fails as if the store were unreachable) that affects this client only.
 */
final class ScriptedStore implements LockStore {
    final InMemoryStore shared;
    /** Names of this client's attempts, in order. */
    final List<String> attemptedNames = new CopyOnWriteArrayList<>();
    /** An error to throw instead of attempting a name, or null to attempt it. */
    volatile Function<String, RuntimeException> failAttempt = name -> null;
    /** While true, every call of this client fails as if the store were unreachable. */
    volatile boolean cutOff;
    /** Names of the threads that called release, in order. */
    final List<String> releasingThreads = new CopyOnWriteArrayList<>();
    /** How long each release takes before it reaches the store. */
    volatile long releaseDelayMillis;

    ScriptedStore(InMemoryStore shared) {
        this.shared = shared;
    }

    /** A client on this view, with a default lease of {@code lease}. */
    Holdfast client(Duration lease) {
        return Holdfast.builder(this).defaultLease(lease).holderName("scripted").connect();
    }

    private void reachable() {
        if (cutOff) {
            throw new StoreUnavailableException("memory", "here", "cut off by the test", null);
        }
    }

    @Override
    public String backend() {
        return shared.backend();
    }

    @Override
    public String address() {
        return shared.address();
    }

    @Override
    public StoreTraits traits() {
        return shared.traits();
    }

    @Override
    public Attempt tryAcquire(String name, String ownerId, String holder, Duration lease) {
        reachable();
        attemptedNames.add(name);
        RuntimeException error = failAttempt.apply(name);
        if (error != null) {
            throw error;
        }
        return shared.tryAcquire(name, ownerId, holder, lease);
    }

    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        reachable();
        return shared.renew(holds, lease);
    }

    @Override
    public boolean release(String name, String ownerId) {
        releasingThreads.add(Thread.currentThread().getName());
        reachable();
        if (releaseDelayMillis > 0) {
            try {
                Thread.sleep(releaseDelayMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return shared.release(name, ownerId);
    }

    @Override
    public AutoCloseable watchReleases(String name, String ownerId, Runnable onRelease) {
        return shared.watchReleases(name, ownerId, onRelease);
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        reachable();
        return shared.inspect(name);
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        return shared.list(prefix, limit);
    }

    @Override
    public boolean forceRelease(String name) {
        return shared.forceRelease(name);
    }

    @Override
    public void close() {
        // the shared store outlives its views
    }
}
