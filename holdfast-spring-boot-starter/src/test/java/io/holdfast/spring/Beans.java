package io.holdfast.spring;

import io.holdfast.Hold;

import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** Beans with {@link Locked} methods for the tests. */
final class Beans {
    private Beans() {
    }

    /** One locked method. */
    public static class Job {
        private final AtomicInteger runs = new AtomicInteger();

        /** How often the body ran (through the proxy: a proxy's own fields are not the bean's). */
        public int runs() {
            return runs.get();
        }

        @Locked("job")
        public void run() {
            runs.incrementAndGet();
        }
    }

    /** State shared by the beans of several contexts. */
    static final class Shared {
        int value; // read, paused over, written: exact only if increments exclude each other
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger mostInside = new AtomicInteger();

        void enter() {
            int now = inside.incrementAndGet();
            mostInside.accumulateAndGet(now, Math::max);
        }

        void exit() {
            inside.decrementAndGet();
        }
    }

    /** A read-pause-write increment of {@link Shared#value} under the lock {@code ${counter.lock}}. */
    public static class Counter {
        private final Shared shared;

        public Counter(Shared shared) {
            this.shared = shared;
        }

        @Locked(name = "${counter.lock}", waitFor = "2m")
        public void increment() throws InterruptedException {
            shared.enter();
            try {
                int read = shared.value;
                Thread.sleep(1);
                shared.value = read + 1;
            } finally {
                shared.exit();
            }
        }
    }

    /** The token, from the thread's context and from a Hold parameter. */
    public static class Tokens {
        @Locked("orders/#{#orderId}")
        public long[] tokens(long orderId, Hold hold) {
            return new long[] {LockedContext.currentToken(), hold.fencingToken(), LockedContext.currentHold("orders/" + orderId).orElseThrow().fencingToken()};
        }
    }

    /** An outer locked method that calls an inner one on another bean, both on the same lock name. */
    public static class Outer {
        private final Inner inner;

        public Outer(Inner inner) {
            this.inner = inner;
        }

        /** Returns the outer token and the inner one. */
        @Locked(name = "nest/#{#id}", waitFor = "5s")
        public long[] outer(String id) {
            long mine = LockedContext.currentToken();
            return new long[] {mine, inner.inner(id), LockedContext.currentToken()};
        }
    }

    public static class Inner {
        @Locked(name = "nest/#{#id}", waitFor = "5s")
        public long inner(String id) {
            return LockedContext.currentToken();
        }
    }

    /** Skip-mode methods on the lock {@code skip}, and ShedLock-style minimum and maximum holds. */
    public static class Skipper {
        private final AtomicInteger runs = new AtomicInteger();

        /** How often the body ran (through the proxy: a proxy's own fields are not the bean's). */
        public int runs() {
            return runs.get();
        }

        @Locked(name = "skip", mode = Locked.Mode.SKIP)
        public String value() {
            runs.incrementAndGet();
            return "ran";
        }

        @Locked(name = "skip", mode = Locked.Mode.SKIP)
        public Optional<String> optional() {
            runs.incrementAndGet();
            return Optional.of("ran");
        }

        @Locked(name = "skip", mode = Locked.Mode.SKIP)
        public void job() {
            runs.incrementAndGet();
        }

        @Locked(name = "quick", mode = Locked.Mode.SKIP, lockAtLeastFor = "5s")
        public void quick() {
            runs.incrementAndGet();
        }

        @Locked(name = "minimum", mode = Locked.Mode.SKIP, lockAtLeastFor = "10m")
        public void longMinimum() {
            runs.incrementAndGet();
        }

        /** Runs until {@code taken} opens (the test opens it once another client took the lock). */
        @Locked(name = "overrun", mode = Locked.Mode.SKIP, lockAtMostFor = "1s")
        public void overrun(CountDownLatch started, CountDownLatch taken) throws InterruptedException {
            started.countDown();
            if (!taken.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test did not open the latch");
            }
        }
    }

    /**
     * Skip-mode methods on the lock {@code ${gated.lock}} that hold it until the test opens a latch, for calls from two
     * contexts: {@link #untilOpened} says it is inside, then waits.
     */
    public static class Gated {
        private final AtomicInteger runs = new AtomicInteger();

        /** How often a body ran (through the proxy: a proxy's own fields are not the bean's). */
        public int runs() {
            return runs.get();
        }

        @Locked(name = "${gated.lock}", mode = Locked.Mode.SKIP)
        public String untilOpened(CountDownLatch inside, CountDownLatch open) throws InterruptedException {
            runs.incrementAndGet();
            inside.countDown();
            if (!open.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test did not open the latch");
            }
            return "ran";
        }

        @Locked(name = "${gated.lock}", mode = Locked.Mode.SKIP)
        public Optional<String> optional() {
            runs.incrementAndGet();
            return Optional.of("ran");
        }
    }

    /** Locked methods in the lock-name group {@code ${metrics.group}}, for the meters a timeout and a loss record. */
    public static class Measured {

        @Locked(name = "${metrics.group}/waited", waitFor = "300ms")
        public void shortWait() {
        }

        @Locked(name = "${metrics.group}/waited", mode = Locked.Mode.SKIP)
        public String skipping() {
            return "ran";
        }

        /** Returns once the hold was lost (the test force-releases it). */
        @Locked("${metrics.group}/lost")
        public void untilLost(CountDownLatch started) throws InterruptedException {
            Lossy.untilLostInline(started);
        }
    }

    /** Methods that run until their hold is lost. */
    public static class Lossy {
        private final AtomicInteger finished = new AtomicInteger();

        /** How often {@link #untilLost} returned normally. */
        public int finished() {
            return finished.get();
        }

        /** Returns normally once the hold was lost (the test force-releases it). */
        @Locked("lossy")
        public String untilLost(CountDownLatch started) throws InterruptedException {
            CountDownLatch lost = new CountDownLatch(1);
            LockedContext.currentHold().orElseThrow().onLost((hold, reason) -> lost.countDown());
            started.countDown();
            if (!lost.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the hold was not lost");
            }
            finished.incrementAndGet();
            return "finished";
        }

        /** Fails on its own after the hold was lost. */
        @Locked("lossy")
        public void failsAfterLoss(CountDownLatch started) throws InterruptedException {
            untilLostInline(started);
            throw new IllegalStateException("the method's own failure");
        }

        /** Sleeps until interrupted. */
        @Locked(name = "lossy", interruptOnLoss = true)
        public void sleepsUntilInterrupted(CountDownLatch started, AtomicReference<Throwable> seen) throws InterruptedException {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                seen.set(e);
                throw e;
            }
        }

        private static void untilLostInline(CountDownLatch started) throws InterruptedException {
            CountDownLatch lost = new CountDownLatch(1);
            LockedContext.currentHold().orElseThrow().onLost((hold, reason) -> lost.countDown());
            started.countDown();
            if (!lost.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the hold was not lost");
            }
        }
    }

    /** Wait-mode methods on the lock {@code contended}. */
    public static class Waiter {
        private final AtomicInteger runs = new AtomicInteger();

        /** How often the body ran (through the proxy: a proxy's own fields are not the bean's). */
        public int runs() {
            return runs.get();
        }

        @Locked(name = "contended", waitFor = "300ms")
        public void shortWait() {
            runs.incrementAndGet();
        }

        @Locked(name = "contended", waitFor = "60s")
        public void longWait() {
            runs.incrementAndGet();
        }

        @Locked(name = "contended", waitFor = "60s")
        public void longWaitDeclaring() throws InterruptedException {
            runs.incrementAndGet();
        }
    }
}
