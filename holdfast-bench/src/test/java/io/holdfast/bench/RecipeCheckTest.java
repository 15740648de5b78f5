package io.holdfast.bench;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recipe shapes' checks, on recipes of this JVM: correct ones (java.util.concurrent) run with counts and no
 * overlap, and adapters that exclude nobody are caught overlapping (two writers, a writer with readers, more than
 * {@value RecipeMeasurement#PERMITS} permits, a name held twice, two leaders), which fails their row.
 */
class RecipeCheckTest {
    private static final RunSettings SETTINGS = new RunSettings(List.of(Shape.READ_WRITE, Shape.SEMAPHORE, Shape.MULTI, Shape.LEADER), 1,
            List.of(1), List.of(1), 1, Duration.ofSeconds(1), 6, 3, 1, Duration.ZERO, Duration.ofMillis(300), Duration.ofMillis(300), 50_000_000,
            Duration.ofSeconds(2));

    @ParameterizedTest
    @EnumSource(value = Shape.class, names = {"READ_WRITE", "SEMAPHORE", "MULTI", "LEADER"})
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCorrectRecipeRunsWithoutOverlap(Shape shape) {
        RunSettings settings = only(shape);
        List<Runner.Row> rows = new Runner(settings).run(storeOf(local(shape)), s -> { });
        assertThat(rows).hasSize(1);
        Runner.Row row = rows.get(0);
        assertThat(row.error()).isNull();
        assertThat(row.failed()).isFalse();
        Map<String, Double> v = byHeader(row);
        assertThat(v.getOrDefault("ops/s", v.get("terms/s"))).isPositive();
        if (shape == Shape.LEADER) { // a resigning leader queues behind the others (once they have joined): terms go to another
            assertThat(v.get("failovers/s")).isPositive().isLessThanOrEqualTo(v.get("terms/s"));
            assertThat(v.get("failover p50 ms")).isPositive();
        }
        assertThat(v.get("timed-out waits")).isZero();
        if (shape == Shape.SEMAPHORE) {
            assertThat(v.get("most inside at once")).isBetween(1.0, (double) RecipeMeasurement.PERMITS);
        }
        if (shape == Shape.READ_WRITE) {
            assertThat(v.get("most readers at once")).isBetween(1.0, 6.0);
        }
        String markdown = Report.render(storeOf(local(shape)), settings, "test", "0 0 0", "now", rows);
        assertThat(markdown).contains("#### " + shape.title, "| " + (shape == Shape.LEADER ? 3 : 6) + " | local " + shape.option + " |");
    }

    @ParameterizedTest
    @EnumSource(value = Shape.class, names = {"READ_WRITE", "SEMAPHORE", "MULTI", "LEADER"})
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRecipeWithoutExclusionIsCaughtOverlapping(Shape shape) {
        // Every acquire "succeeds" at once and every candidate is elected at once: the threads are soon inside together.
        RecipeLibrary broken = new RecipeLibrary(shape, "no exclusion", "test", 2, () -> new RecipeLibrary.Parts((names, write, wait) -> new Object(),
                held -> { }, (name, elected) -> {
                    elected.run();
                    return () -> { };
                }, () -> { }));
        Runner.Row row = null;
        for (int attempt = 0; attempt < 50 && (row == null || !row.failed()); attempt++) { // until caught; each attempt is 0.3 s
            List<Runner.Row> rows = new Runner(only(shape)).run(storeOf(broken), s -> { });
            assertThat(rows).hasSize(1);
            row = rows.get(0);
            assertThat(row.error()).isNull();
        }
        assertThat(byHeader(row).get(Runner.OVERLAPS)).isPositive();
        assertThat(row.failed()).isTrue();
    }

    private static RunSettings only(Shape shape) {
        return new RunSettings(List.of(shape), SETTINGS.ownNameThreads(), SETTINGS.threads(), SETTINGS.clients(), SETTINGS.locks(), SETTINGS.lease(),
                SETTINGS.recipeThreads(), SETTINGS.candidates(), 1, SETTINGS.warmup(), SETTINGS.measure(), SETTINGS.recipeMeasure(),
                SETTINGS.maxAcquisitions(), SETTINGS.acquireWait());
    }

    private static RunningStore storeOf(RecipeLibrary recipe) {
        return new RunningStore("Test", "none", List.of(), List.of(recipe), ServerMeter.NONE, false, () -> { });
    }

    private static Map<String, Double> byHeader(Runner.Row row) {
        Map<String, Double> m = new java.util.LinkedHashMap<>();
        row.values().forEach((c, v) -> m.put(c.header(), v));
        return m;
    }

    /** The recipe of {@code shape} in this JVM, shared by every client of the library. */
    private static RecipeLibrary local(Shape shape) {
        Map<String, ReentrantReadWriteLock> rw = new ConcurrentHashMap<>();
        Map<String, Semaphore> semaphores = new ConcurrentHashMap<>();
        Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();
        return new RecipeLibrary(shape, "local " + shape.option, "java.util.concurrent", () -> new RecipeLibrary.Parts((names, write, wait) -> {
            long nanos = wait.toNanos();
            return switch (shape) {
                case READ_WRITE -> {
                    ReentrantReadWriteLock l = rw.computeIfAbsent(names.get(0), n -> new ReentrantReadWriteLock(true));
                    Lock side = write ? l.writeLock() : l.readLock();
                    yield side.tryLock(nanos, TimeUnit.NANOSECONDS) ? side : null;
                }
                case SEMAPHORE -> {
                    Semaphore s = semaphores.computeIfAbsent(names.get(0), n -> new Semaphore(RecipeMeasurement.PERMITS, true));
                    yield s.tryAcquire(nanos, TimeUnit.NANOSECONDS) ? s : null;
                }
                default -> { // multi: each name in ascending order, all or nothing
                    List<Lock> taken = new ArrayList<>();
                    for (String name : names.stream().sorted().toList()) {
                        ReentrantLock l = locks.computeIfAbsent(name, n -> new ReentrantLock(true));
                        if (!l.tryLock(nanos, TimeUnit.NANOSECONDS)) {
                            taken.forEach(Lock::unlock);
                            yield null;
                        }
                        taken.add(l);
                    }
                    yield taken;
                }
            };
        }, held -> {
            if (held instanceof Lock l) {
                l.unlock();
            } else if (held instanceof Semaphore s) {
                s.release();
            } else {
                ((List<?>) held).forEach(l -> ((Lock) l).unlock());
            }
        }, (name, elected) -> { // leadership is a permit of one; each candidacy waits for it on a thread of its own
            Semaphore leadership = semaphores.computeIfAbsent(name, n -> new Semaphore(1, true));
            AtomicBoolean won = new AtomicBoolean();
            Thread t = new Thread(() -> {
                try {
                    leadership.acquire();
                    won.set(true);
                    elected.run();
                } catch (InterruptedException e) {
                    // left the race
                }
            });
            t.setDaemon(true);
            t.start();
            return () -> {
                t.interrupt();
                t.join();
                if (won.get()) {
                    leadership.release();
                }
            };
        }, () -> { }));
    }
}
