package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockLostException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Locked} in skip mode on a SQLite file: a call skips while another client holds the lock, lockAtLeastFor keeps
 * the lock after a quick method returned, and lockAtMostFor lets the lock go while an overrunning method still runs.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LockedSkipModeTest {

    @Test
    void callsSkipWhileAnotherClientHoldsTheLock() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=" + uri).withBean(Beans.Skipper.class).run(context -> {
            Beans.Skipper skipper = context.getBean(Beans.Skipper.class);
            try (Holdfast other = Holdfast.connect(uri)) {
                try (Hold held = other.lock("skip").acquire(Duration.ofSeconds(5))) {
                    assertThat(skipper.value()).as("skipped: null").isNull();
                    assertThat(skipper.optional()).as("skipped: Optional.empty()").isEmpty();
                    skipper.job();
                    assertThat(skipper.runs()).as("no body ran").isZero();
                }
                assertThat(skipper.value()).isEqualTo("ran");
                assertThat(skipper.optional()).contains("ran");
                skipper.job();
                assertThat(skipper.runs()).isEqualTo(3);
                assertThat(other.lock("skip").tryAcquire()).as("each call released its hold").isPresent().get().satisfies(Hold::close);
            }
        });
    }

    /**
     * A method with lockAtLeastFor 5 s returns at once; the release is never seen before 5 s have passed since the
     * call began, whatever the machine's speed, and it does come.
     */
    @Test
    void lockAtLeastForReleasesNoEarlierThanTheMinimum() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=" + uri).withBean(Beans.Skipper.class).run(context -> {
            Beans.Skipper skipper = context.getBean(Beans.Skipper.class);
            try (Holdfast other = Holdfast.connect(uri)) {
                long start = System.nanoTime();
                skipper.quick();
                Optional<Hold> freed = Optional.empty();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (freed.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                    freed = other.lock("quick").tryAcquire();
                }
                long freedAfter = System.nanoTime() - start;
                assertThat(freed).as("released in the background after lockAtLeastFor").isPresent();
                freed.get().close();
                assertThat(Duration.ofNanos(freedAfter)).as("not released before lockAtLeastFor").isGreaterThanOrEqualTo(Duration.ofSeconds(5));
                assertThat(skipper.runs()).isEqualTo(1);
            }
        });
    }

    /**
     * With lockAtLeastFor 10 min (longer than any stall of a test machine) the lock is held right after the method
     * returned, a second call skips, and closing the context gives the lock back early instead of leaving it held.
     */
    @Test
    void lockAtLeastForKeepsTheLockAfterReturnUntilTheContextCloses() throws Exception {
        String uri = Runners.sqliteUri();
        try (Holdfast other = Holdfast.connect(uri)) {
            Runners.starter().withPropertyValues("holdfast.uri=" + uri).withBean(Beans.Skipper.class).run(context -> {
                Beans.Skipper skipper = context.getBean(Beans.Skipper.class);
                skipper.longMinimum();
                assertThat(other.lock("minimum").tryAcquire()).as("held right after the method returned").isEmpty();
                skipper.longMinimum();
                assertThat(skipper.runs()).as("the second call skipped: the lock was still held").isEqualTo(1);
            });
            Optional<Hold> afterClose = other.lock("minimum").tryAcquire(Duration.ofSeconds(30));
            assertThat(afterClose).as("given back when the context closed").isPresent();
            afterClose.get().close();
        }
    }

    /**
     * lockAtMostFor 1 s is an unrenewed lease: while the method still runs, another client takes the lock once the
     * lease ran out, and the overrunning call then ends in LockLostException.
     */
    @Test
    void lockAtMostForLetsTheLockGoWhileTheMethodOverruns() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=" + uri).withBean(Beans.Skipper.class).run(context -> {
            Beans.Skipper skipper = context.getBean(Beans.Skipper.class);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch taken = new CountDownLatch(1);
            CompletableFuture<Void> call = CompletableFuture.runAsync(() -> {
                try {
                    skipper.overrun(started, taken);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            try (Holdfast other = Holdfast.connect(uri); Hold theirs = other.lock("overrun").acquire(Duration.ofSeconds(30))) {
                taken.countDown();
                assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(LockLostException.class);
                assertThat(theirs.isValid()).isTrue();
            }
        });
    }
}
