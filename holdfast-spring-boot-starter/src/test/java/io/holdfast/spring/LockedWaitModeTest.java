package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Locked} in wait mode on real stores: calls from several threads of two application contexts (two clients)
 * exclude each other, a wait that runs out throws without running the method, an interrupted wait, the fencing token
 * inside the method, and re-entry of a nested method on the same lock.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LockedWaitModeTest {
    private static final int THREADS_PER_CONTEXT = 3;
    private static final int CALLS_PER_THREAD = 10;

    @Test
    void callsFromThreadsOfTwoContextsExcludeEachOtherOnSqlite() throws Exception {
        excludeAcrossTwoContexts("holdfast.uri=" + Runners.sqliteUri());
    }

    @Test
    void callsFromThreadsOfTwoContextsExcludeEachOtherOnPostgres() throws Exception {
        excludeAcrossTwoContexts("holdfast.uri=" + Runners.POSTGRES_URI);
    }

    /** A read-pause-write counter run under the lock from 2 × 3 threads ends exact, never two bodies at once. */
    private static void excludeAcrossTwoContexts(String store) throws Exception {
        Beans.Shared shared = new Beans.Shared();
        ApplicationContextRunner runner = Runners.starter()
                .withPropertyValues(store, "counter.lock=counter-" + UUID.randomUUID())
                .withBean(Beans.Shared.class, () -> shared)
                .withBean(Beans.Counter.class);
        runner.run(first -> runner.run(second -> {
            ExecutorService threads = Executors.newFixedThreadPool(2 * THREADS_PER_CONTEXT);
            try {
                List<Future<?>> calls = new ArrayList<>();
                for (ApplicationContext context : List.of(first, second)) {
                    Beans.Counter counter = context.getBean(Beans.Counter.class);
                    for (int t = 0; t < THREADS_PER_CONTEXT; t++) {
                        calls.add(threads.submit(() -> {
                            for (int i = 0; i < CALLS_PER_THREAD; i++) {
                                counter.increment();
                            }
                            return null;
                        }));
                    }
                }
                for (Future<?> call : calls) {
                    call.get(100, TimeUnit.SECONDS);
                }
            } finally {
                threads.shutdownNow();
            }
            assertThat(shared.mostInside.get()).as("bodies running at once").isEqualTo(1);
            assertThat(shared.value).isEqualTo(2 * THREADS_PER_CONTEXT * CALLS_PER_THREAD);
        }));
    }

    @Test
    void aWaitThatRunsOutThrowsWithoutRunningTheMethod() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=" + uri).withBean(Beans.Waiter.class).run(context -> {
            Beans.Waiter waiter = context.getBean(Beans.Waiter.class);
            try (Holdfast other = Holdfast.connect(uri); Hold held = other.lock("contended").acquire(Duration.ofSeconds(5))) {
                assertThatThrownBy(waiter::shortWait).isInstanceOf(LockTimeoutException.class).hasMessageContaining("contended");
            }
            assertThat(waiter.runs()).isZero();
            waiter.shortWait();
            assertThat(waiter.runs()).as("runs once the lock is free").isEqualTo(1);
        });
    }

    @Test
    void anInterruptedWaitThrowsWithTheFlagSet() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=" + uri).withBean(Beans.Waiter.class).run(context -> {
            Beans.Waiter waiter = context.getBean(Beans.Waiter.class);
            try (Holdfast other = Holdfast.connect(uri); Hold held = other.lock("contended").acquire(Duration.ofSeconds(5))) {
                assertThat(interruptWhileWaiting(waiter::longWait)).isInstanceOf(LockInterruptedException.class)
                        .hasMessageContaining("contended").hasCauseInstanceOf(InterruptedException.class);
                assertThat(interruptWhileWaiting(waiter::longWaitDeclaring)).as("declared, so thrown as is")
                        .isInstanceOf(InterruptedException.class);
            }
            assertThat(waiter.runs()).isZero();
        });
    }

    private interface Call {
        void run() throws Exception;
    }

    /** Runs {@code call} on a new thread, interrupts it once it waits, and returns what it threw (flag checked set). */
    private static Throwable interruptWhileWaiting(Call call) throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CompletableFuture<Boolean> flagAfter = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                call.run();
            } catch (Throwable t) {
                thrown.set(t);
            }
            flagAfter.complete(Thread.currentThread().isInterrupted());
        });
        caller.start();
        assertThat(Await.within(Duration.ofSeconds(30), () -> caller.getState() == Thread.State.WAITING
                || caller.getState() == Thread.State.TIMED_WAITING)).as("the caller waits").isTrue();
        caller.interrupt();
        assertThat(flagAfter.get(30, TimeUnit.SECONDS)).as("interrupt flag after the call").isTrue();
        return thrown.get();
    }

    @Test
    void theFencingTokenIsVisibleInsideTheMethod() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=" + uri).withBean(Beans.Tokens.class).run(context -> {
            Beans.Tokens tokens = context.getBean(Beans.Tokens.class);
            long[] first = tokens.tokens(42, null);
            assertThat(first[0]).isPositive().isEqualTo(first[1]).isEqualTo(first[2]);
            try (Holdfast other = Holdfast.connect(uri)) {
                assertThat(other.admin().status("orders/42").orElseThrow().fencingToken()).as("the store's token").isEqualTo(first[0]);
                assertThat(other.lock("orders/42").tryAcquire()).as("released after the call").isPresent().get()
                        .satisfies(Hold::close);
            }
            long[] second = tokens.tokens(42, null);
            assertThat(second[0]).as("a later acquisition's token is greater").isGreaterThan(first[0]);
            assertThat(LockedContext.currentHold()).as("nothing bound after the call").isEmpty();
        });
    }

    @Test
    void aNestedMethodOnTheSameLockReentersTheOuterHold() {
        Runners.starter().withPropertyValues("holdfast.uri=" + Runners.sqliteUri())
                .withBean(Beans.Inner.class).withBean(Beans.Outer.class)
                .run(context -> {
                    long[] tokens = context.getBean(Beans.Outer.class).outer("a");
                    assertThat(tokens[1]).as("the inner method re-entered with the outer token").isEqualTo(tokens[0]);
                    assertThat(tokens[2]).as("the outer hold is current again").isEqualTo(tokens[0]);
                    Holdfast holdfast = context.getBean(Holdfast.class);
                    try (Hold after = holdfast.lock("nest/a").tryAcquire().orElseThrow()) {
                        assertThat(after.fencingToken()).as("freed when the outer method returned").isGreaterThan(tokens[0]);
                    }
                });
    }
}
