package io.holdfast.bench;

import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Redisson's recipes beyond the mutex, one {@code RedissonClient} per client (as {@link RedisLibraries#redisson} opens
 * it): {@code RReadWriteLock}, {@code RPermitExpirableSemaphore} and {@code RSemaphore}, {@code RedissonMultiLock}.
 * Redisson has no leader election.
 */
final class RedissonRecipes {
    private static final String CLIENT = "one `RedissonClient` per client (4 command connections, 2 for pub/sub; watchdog = "
            + Runner.LEASE.toSeconds() + " s); ";

    private RedissonRecipes() {
    }

    /** What an adapter does with its client. */
    private interface Use {
        RecipeLibrary.Parts.Acquire acquire(RedissonClient redisson);
    }

    static List<RecipeLibrary> of(String host, int port) {
        String version = "Redisson " + Versions.of("redisson") + " ";
        return List.of(
                new RecipeLibrary(Shape.READ_WRITE, version + "RReadWriteLock", CLIENT + "each thread calls "
                        + "`getReadWriteLock(name).readLock()` or `.writeLock()` `.tryLock(wait)` and `unlock()`",
                        () -> locks(host, port, redisson -> (names, write, wait) -> {
                            var rw = redisson.getReadWriteLock("bench-redisson-rw:" + names.get(0));
                            RLock lock = write ? rw.writeLock() : rw.readLock();
                            return lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? lock : null;
                        }, held -> ((RLock) held).unlock())),
                new RecipeLibrary(Shape.SEMAPHORE, version + "RPermitExpirableSemaphore", CLIENT + "`trySetPermits("
                        + RecipeMeasurement.PERMITS + ")` once per client; each thread calls `tryAcquire(wait, lease = "
                        + Runner.LEASE.toSeconds() + " s)` (a permit id; a crashed holder's permit comes back after the lease; no "
                        + "renewal) and `release(id)`", () -> {
                            RedissonClient redisson = RedisLibraries.redissonClient(host, port, Runner.LEASE);
                            Map<String, RPermitExpirableSemaphore> set = new ConcurrentHashMap<>();
                            return RecipeLibrary.Parts.locks((names, write, wait) -> {
                                RPermitExpirableSemaphore s = set.computeIfAbsent(names.get(0), n -> {
                                    RPermitExpirableSemaphore made = redisson.getPermitExpirableSemaphore("bench-redisson-psem:" + n);
                                    made.trySetPermits(RecipeMeasurement.PERMITS);
                                    return made;
                                });
                                String id = s.tryAcquire(wait.toMillis(), Runner.LEASE.toMillis(), TimeUnit.MILLISECONDS);
                                return id == null ? null : new Permit(s, id);
                            }, held -> ((Permit) held).release(), () -> shutdown(redisson));
                        }),
                new RecipeLibrary(Shape.SEMAPHORE, version + "RSemaphore", CLIENT + "`trySetPermits(" + RecipeMeasurement.PERMITS
                        + ")` once per client; each thread calls `tryAcquire(wait)` and `release()` (no lease: a crashed holder's "
                        + "permit is gone for good)", () -> locks(host, port, redisson -> {
                            Map<String, RSemaphore> set = new ConcurrentHashMap<>();
                            return (names, write, wait) -> {
                                RSemaphore s = set.computeIfAbsent(names.get(0), n -> {
                                    RSemaphore made = redisson.getSemaphore("bench-redisson-sem:" + n);
                                    made.trySetPermits(RecipeMeasurement.PERMITS);
                                    return made;
                                });
                                return s.tryAcquire(wait.toMillis(), TimeUnit.MILLISECONDS) ? s : null;
                            };
                        }, held -> ((RSemaphore) held).release())),
                new RecipeLibrary(Shape.MULTI, version + "RedissonMultiLock", CLIENT + "each thread calls `getMultiLock(getLock(a), "
                        + "getLock(b))` (names sorted) `.tryLock(wait)` (all or nothing) and `unlock()`",
                        () -> locks(host, port, redisson -> (names, write, wait) -> {
                            RLock multi = redisson.getMultiLock(names.stream().sorted().map(n -> redisson.getLock("bench-redisson-multi:" + n))
                                    .toArray(RLock[]::new));
                            return multi.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS) ? multi : null;
                        }, held -> ((RLock) held).unlock())));
    }

    /** A permit of an {@code RPermitExpirableSemaphore}, by id. */
    private record Permit(RPermitExpirableSemaphore semaphore, String id) {
        void release() {
            semaphore.release(id);
        }
    }

    private static RecipeLibrary.Client locks(String host, int port, Use use, RecipeLibrary.Parts.Release release) {
        RedissonClient redisson = RedisLibraries.redissonClient(host, port, Runner.LEASE);
        return RecipeLibrary.Parts.locks(use.acquire(redisson), release, () -> shutdown(redisson));
    }

    private static void shutdown(RedissonClient redisson) {
        redisson.shutdown(0, 2, TimeUnit.SECONDS);
    }

}
