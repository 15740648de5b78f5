package io.holdfast.bench;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Curator's recipes beyond the mutex, one {@code CuratorFramework} per client: {@code InterProcessReadWriteLock},
 * {@code InterProcessSemaphoreV2}, {@code InterProcessMultiLock} and {@code LeaderLatch}. Curator's locks are
 * re-entrant per thread, so each thread has its own recipe instance per path, as an application would.
 */
final class CuratorRecipes {
    private static final String CLIENT = "one `CuratorFramework` per client (session " + CoordinationLibraries.SESSION_SECONDS + " s); ";

    private CuratorRecipes() {
    }

    static List<RecipeLibrary> of(String connect) {
        String version = "Curator " + Versions.of("curator") + " ";
        return List.of(
                new RecipeLibrary(Shape.READ_WRITE, version + "InterProcessReadWriteLock", CLIENT + "each thread has its own "
                        + "`InterProcessReadWriteLock` on the path and calls `readLock()` or `writeLock()` `.acquire(wait)` and `release()`",
                        () -> perThread(connect, (curator, names) -> new InterProcessReadWriteLock(curator, "/bench-curator-rw/" + names.get(0)),
                                (rw, write) -> write ? ((InterProcessReadWriteLock) rw).writeLock() : ((InterProcessReadWriteLock) rw).readLock())),
                new RecipeLibrary(Shape.SEMAPHORE, version + "InterProcessSemaphoreV2", CLIENT + "each thread has its own "
                        + "`InterProcessSemaphoreV2(path, " + RecipeMeasurement.PERMITS + ")` and calls `acquire(wait)` (a `Lease`, held "
                        + "by the session) and `returnLease(lease)`", () -> {
                            CuratorFramework curator = CoordinationLibraries.connectCurator(connect);
                            ThreadLocal<Map<String, InterProcessSemaphoreV2>> mine = ThreadLocal.withInitial(HashMap::new);
                            return RecipeLibrary.Parts.locks((names, write, wait) -> {
                                InterProcessSemaphoreV2 semaphore = mine.get().computeIfAbsent(names.get(0),
                                        n -> new InterProcessSemaphoreV2(curator, "/bench-curator-semaphore/" + n, RecipeMeasurement.PERMITS));
                                return semaphore.acquire(wait.toMillis(), TimeUnit.MILLISECONDS);
                            }, held -> ((Lease) held).close(), curator::close);
                        }),
                new RecipeLibrary(Shape.MULTI, version + "InterProcessMultiLock", CLIENT + "each thread has its own "
                        + "`InterProcessMultiLock` per set of paths (an `InterProcessMutex` per path, taken in the order given, all or "
                        + "nothing) and calls `acquire(wait)` and `release()`; the names are given sorted",
                        () -> perThread(connect, (curator, names) -> new InterProcessMultiLock(curator,
                                names.stream().sorted().map(n -> "/bench-curator-multi/" + n).toList()), (lock, write) -> (InterProcessLock) lock)),
                new RecipeLibrary(Shape.LEADER, version + "LeaderLatch", CLIENT.replace("client", "candidate") + "a candidacy is a "
                        + "`LeaderLatch` on the path with a listener whose `isLeader()` reports the election, `start()`; stepping down is "
                        + "`close()` (deletes its node), rejoining a new `LeaderLatch`", () -> {
                            CuratorFramework curator = CoordinationLibraries.connectCurator(connect);
                            return RecipeLibrary.Parts.leader((name, elected) -> {
                                LeaderLatch latch = new LeaderLatch(curator, "/bench-curator-leader/" + name);
                                latch.addListener(new LeaderLatchListener() {
                                    @Override
                                    public void isLeader() {
                                        elected.run();
                                    }

                                    @Override
                                    public void notLeader() {
                                        // a step-down is the candidate's own close
                                    }
                                });
                                latch.start();
                                return latch;
                            }, curator::close);
                        }));
    }

    /** Makes the recipe object of a thread for a list of names. */
    private interface Maker {
        Object make(CuratorFramework curator, List<String> names);
    }

    /** The lock of a recipe object to take: the read or write side, or the object itself. */
    private interface Side {
        InterProcessLock of(Object recipe, boolean write);
    }

    /** A client whose threads each keep their own recipe object per list of names. */
    private static RecipeLibrary.Client perThread(String connect, Maker maker, Side side) throws InterruptedException {
        CuratorFramework curator = CoordinationLibraries.connectCurator(connect);
        ThreadLocal<Map<List<String>, Object>> mine = ThreadLocal.withInitial(HashMap::new);
        Function<List<String>, Object> make = names -> maker.make(curator, names);
        return RecipeLibrary.Parts.locks((names, write, wait) -> {
            InterProcessLock lock = side.of(mine.get().computeIfAbsent(List.copyOf(names), make), write);
            return lock.acquire(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock : null;
        }, held -> ((InterProcessLock) held).release(), curator::close);
    }

}
