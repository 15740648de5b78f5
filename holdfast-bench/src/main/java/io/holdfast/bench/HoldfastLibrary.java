package io.holdfast.bench;

import io.holdfast.DistributedReadWriteLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LeaderElection;

import java.util.List;

/** Holdfast on any backend, through its public API. */
final class HoldfastLibrary {
    private HoldfastLibrary() {
    }

    /**
     * Holdfast at {@code uri}: one {@code Holdfast} client per {@link LockLibrary#open}, its holds lasting the lease given
     * there, waiting and renewal its own.
     *
     * @param backend the backend's name, for the tables
     */
    static LockLibrary of(String uri, String backend) {
        return new Library(name(backend),
                "one `Holdfast` client; each thread calls `holdfast.lock(name).tryAcquire(wait)` and `Hold.close()`; "
                        + "waiting and renewal are the library's own",
                LockLibrary.Renewal.OWN, lease -> {
                    Holdfast holdfast = Holdfast.builder(uri).defaultLease(lease).connect();
                    return new Library.Parts((name, wait) -> holdfast.lock(name).tryAcquire(wait).orElse(null),
                            held -> ((Hold) held).close(), null, holdfast::close);
                });
    }

    /**
     * Holdfast's recipes at {@code uri}, one {@code Holdfast} client per {@link RecipeLibrary#opener()} call (default lease,
     * {@link Runner#LEASE}), through the public API.
     */
    static List<RecipeLibrary> recipes(String uri, String backend) {
        String client = "one `Holdfast` client (lease " + Runner.LEASE.toSeconds() + " s, renewed); ";
        return List.of(
                new RecipeLibrary(Shape.READ_WRITE, name(backend) + " readWriteLock", client + "each thread calls "
                        + "`holdfast.readWriteLock(name).readLock()` or `.writeLock()` `.tryAcquire(wait)` and `PermitHold.close()`; at most "
                        + DistributedReadWriteLock.MAX_READERS + " readers", DistributedReadWriteLock.MAX_READERS,
                        () -> locks(uri, (h, names, write, wait) -> (write ? h.readWriteLock(names.get(0)).writeLock()
                                : h.readWriteLock(names.get(0)).readLock()).tryAcquire(wait).orElse(null))),
                new RecipeLibrary(Shape.SEMAPHORE, name(backend) + " semaphore", client + "each thread calls `holdfast.semaphore(name, "
                        + RecipeMeasurement.PERMITS + ").tryAcquire(1, wait)` and `PermitHold.close()` (each permit a lock with its own lease)",
                        () -> locks(uri, (h, names, write, wait) -> h.semaphore(names.get(0), RecipeMeasurement.PERMITS).tryAcquire(1, wait)
                                .orElse(null))),
                new RecipeLibrary(Shape.MULTI, name(backend) + " multiLock", client + "each thread calls "
                        + "`holdfast.multiLock(names).tryAcquire(wait)` (parts in name order, all or nothing) and `MultiHold.close()`",
                        () -> locks(uri, (h, names, write, wait) -> h.multiLock(names.toArray(String[]::new)).tryAcquire(wait).orElse(null))),
                new RecipeLibrary(Shape.LEADER, name(backend) + " leader", "one `Holdfast` client per candidate; a candidacy is "
                        + "`holdfast.leader(name)` with an `onElected` listener, `start()`; stepping down is `close()` (resigns), "
                        + "rejoining a new `holdfast.leader(name)`", () -> {
                            Holdfast holdfast = Holdfast.builder(uri).defaultLease(Runner.LEASE).connect();
                            return RecipeLibrary.Parts.leader((name, elected) -> {
                                LeaderElection election = holdfast.leader(name);
                                election.onElected(term -> elected.run());
                                election.start();
                                return election;
                            }, holdfast::close);
                        }));
    }

    /** Takes a recipe's hold (a {@code PermitHold} or {@code MultiHold}) through a client. */
    private interface Take {
        AutoCloseable take(Holdfast holdfast, List<String> names, boolean write, java.time.Duration wait) throws Exception;
    }

    private static RecipeLibrary.Client locks(String uri, Take take) {
        Holdfast holdfast = Holdfast.builder(uri).defaultLease(Runner.LEASE).connect();
        return RecipeLibrary.Parts.locks((names, write, wait) -> take.take(holdfast, names, write, wait), held -> ((AutoCloseable) held).close(), holdfast::close);
    }

    private static String name(String backend) {
        return "Holdfast " + Versions.of("holdfast") + " (" + backend + ")";
    }
}
