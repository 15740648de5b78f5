package io.holdfast.testkit;

import io.holdfast.DistributedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockTimeoutException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Waiting in the shapes a service uses: many threads of one process sharing one client on one name, and
 * waits of every length down to less than one store round trip. Every test is bounded in count and time
 * and has a timeout, so a hang fails fast with a thread dump instead of stalling the build.
 */
public abstract class SharedClientConformance extends ConformanceBase {

    /**
     * T threads share one client and loop acquire/release on one name until each has had the lock twice
     * (at least 2 s, at most 20 s): a plain counter stays exact, every thread gets the lock, no gap between
     * two acquisitions is long enough to mean a stuck wait, and all threads stop promptly.
     */
    @ParameterizedTest(name = "{0} threads")
    @ValueSource(ints = {2, 8, 64})
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    public void threadsSharingOneClientAllGetTheLockInTurn(int threads) throws Exception {
        String name = name("shared-" + threads);
        DistributedLock lock = client().lock(name);
        AtomicIntegerArray perThread = new AtomicIntegerArray(threads);
        List<Long> acquiredAt = Collections.synchronizedList(new ArrayList<>());
        int[] counter = {0}; // deliberately plain: only the lock keeps read-sleep-write exact
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = executor(threads);
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int me = i;
            workers.add(pool.submit(() -> {
                while (!stop.get()) {
                    try (Hold hold = lock.acquire(Duration.ofSeconds(60))) {
                        acquiredAt.add(System.nanoTime());
                        mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        int read = counter[0];
                        Thread.sleep(1);
                        counter[0] = read + 1;
                        inside.decrementAndGet();
                        perThread.incrementAndGet(me);
                    }
                }
                return null;
            }));
        }
        long started = System.nanoTime();
        while (!allAtLeast(perThread, 2) || System.nanoTime() - started < TimeUnit.SECONDS.toNanos(2)) {
            if (System.nanoTime() - started > TimeUnit.SECONDS.toNanos(20)) {
                break;
            }
            Thread.sleep(20);
        }
        stop.set(true);
        for (Future<?> worker : workers) {
            worker.get(90, TimeUnit.SECONDS); // a stuck waiter fails here (or at the timeout, with a thread dump)
        }
        int total = 0;
        for (int i = 0; i < threads; i++) {
            assertThat(perThread.get(i)).as("acquisitions of thread %d of %d", i, threads).isPositive();
            total += perThread.get(i);
        }
        assertThat(mostInside.get()).as("holders inside at once, at most").isEqualTo(1);
        assertThat(counter[0]).as("plain counter after %d acquisitions", total).isEqualTo(total);
        List<Long> times = new ArrayList<>(acquiredAt);
        Collections.sort(times);
        long longestGap = 0;
        for (int i = 1; i < times.size(); i++) {
            longestGap = Math.max(longestGap, times.get(i) - times.get(i - 1));
        }
        System.out.printf("%s %d threads on one client: %d acquisitions in %d ms, fewest per thread %d, longest gap %d ms%n",
                getClass().getSimpleName(), threads, total, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                fewest(perThread), TimeUnit.NANOSECONDS.toMillis(longestGap));
        assertThat(Duration.ofNanos(longestGap)).as("longest gap between two acquisitions (a stuck wait, not slowness, "
                + "makes it this long)").isLessThan(Duration.ofSeconds(5));
    }

    /**
     * Hundreds of waits shorter than one store round trip, while another client holds the name, each
     * return (empty, or a time-out); afterwards a normal wait gets the lock as soon as it frees.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    public void waitsShorterThanARoundTripReturnAndLeaveTheNameUsable() throws Exception {
        String name = name("short-waits");
        Holdfast holderClient = client();
        Holdfast waiterClient = client();
        Hold held = holderClient.lock(name).acquire(Duration.ofSeconds(20));
        DistributedLock lock = waiterClient.lock(name);
        for (int i = 0; i < 100; i++) {
            CompletableFuture<Optional<Hold>> wait = CompletableFuture.supplyAsync(() -> {
                try {
                    return lock.tryAcquire(Duration.ofNanos(1000));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(wait.get(20, TimeUnit.SECONDS)).as("tryAcquire(1 µs) #%d on a held lock", i).isEmpty();
            CompletableFuture<Hold> async = lock.acquireAsync(Duration.ZERO);
            assertThatThrownBy(() -> async.get(20, TimeUnit.SECONDS)).as("acquireAsync(ZERO) #%d on a held lock", i)
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LockTimeoutException.class);
        }
        CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(held::close);
        Optional<Hold> later = lock.tryAcquire(Duration.ofSeconds(20));
        assertThat(later).as("a 20 s wait on a lock freed after 300 ms").isPresent();
        later.get().close();
    }

    /**
     * A thousand virtual threads share one client and each takes the lock once, in a child JVM of a JDK 21+
     * (this JVM's if it is one, else the newest under /usr/lib/jvm, or $HOLDFAST_JDK21): all get it, the
     * counter is exact, and waiting takes no platform thread per waiter. Only a stall fails it, not a slow machine
     * (see {@link VirtualThreadProbe#STALL}).
     */
    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    public void aThousandVirtualThreadsShareOneClient() throws Exception {
        Optional<Path> java = jdk21();
        Assumptions.assumeTrue(java.isPresent(), "no JDK 21 or newer found (this JVM, $HOLDFAST_JDK21, /usr/lib/jvm): "
                + "virtual threads cannot be tried here");
        int threads = 1000;
        try (ChildJvm child = ChildJvm.start(java.get(), VirtualThreadProbe.class, uri(), name("virtual"), Integer.toString(threads))) {
            String line = child.awaitLine(l -> l.startsWith("probe "), Duration.ofSeconds(580));
            System.out.println(getClass().getSimpleName() + " virtual threads on " + java.get() + ": " + line);
            assertThat(line).as("the probe's report; output:\n%s", child.transcript()).startsWith("probe acquired=");
            assertThat(line).contains("acquired=" + threads + " counter=" + threads + " ");
            int peak = Integer.parseInt(line.substring(line.indexOf("peakPlatformThreads=") + 20).trim());
            assertThat(peak).as("peak platform threads of %d virtual waiters", threads).isLessThan(threads / 5);
        }
    }

    private static int fewest(AtomicIntegerArray counts) {
        int min = Integer.MAX_VALUE;
        for (int i = 0; i < counts.length(); i++) {
            min = Math.min(min, counts.get(i));
        }
        return min;
    }

    private static boolean allAtLeast(AtomicIntegerArray counts, int n) {
        for (int i = 0; i < counts.length(); i++) {
            if (counts.get(i) < n) {
                return false;
            }
        }
        return true;
    }

    /** A java executable of release 21 or newer, if the machine has one. */
    static Optional<Path> jdk21() throws IOException {
        Path own = Path.of(System.getProperty("java.home"), "bin", "java");
        if (Runtime.version().feature() >= 21) {
            return Optional.of(own);
        }
        String env = System.getenv("HOLDFAST_JDK21");
        if (env != null && Files.isExecutable(Path.of(env, "bin", "java"))) {
            return Optional.of(Path.of(env, "bin", "java"));
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> dirs = Files.list(jvms)) {
            return dirs.filter(d -> feature(d) >= 21 && Files.isExecutable(d.resolve("bin/java")))
                    .max((a, b) -> Integer.compare(feature(a), feature(b)))
                    .map(d -> d.resolve("bin/java"));
        }
    }

    /** The feature release a JDK directory declares in its {@code release} file, or 0. */
    private static int feature(Path jdk) {
        try {
            for (String line : Files.readAllLines(jdk.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    int dot = v.indexOf('.');
                    return Integer.parseInt(dot < 0 ? v : v.substring(0, dot));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }
}
