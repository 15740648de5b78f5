package io.holdfast.spring;

import io.holdfast.Holdfast;
import io.holdfast.LockLostException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A hold force-released by an operator while its {@link Locked} method runs: the caller gets LockLostException after
 * the method returns; the method's own exception carries it as suppressed; with interruptOnLoss the method's thread is
 * interrupted and the flag cleared afterwards. The lease is 2 s so that the loss is found at the next renewal soon.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LockedLossTest {

    private interface Body {
        Object run(CountDownLatch started) throws Exception;
    }

    /** Runs {@code body} on a new thread, force-releases "lossy" once it started, and returns what the call threw. */
    private static Throwable forceReleaseWhileRunning(String uri, Body body, AtomicReference<Boolean> interruptFlagAfter) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Object> call = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                call.complete(body.run(started));
            } catch (Throwable t) {
                call.completeExceptionally(t);
            }
            interruptFlagAfter.set(Thread.currentThread().isInterrupted());
        });
        caller.start();
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        try (Holdfast operator = Holdfast.connect(uri)) {
            assertThat(operator.admin().forceRelease("lossy")).isTrue();
        }
        Throwable thrown = catchThrowable(() -> call.get(60, TimeUnit.SECONDS));
        caller.join(10_000);
        return thrown instanceof ExecutionException e ? e.getCause() : thrown;
    }

    @Test
    void aLossWhileTheMethodRunsIsThrownAfterItReturns() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=" + uri, "holdfast.default-lease=2s").withBean(Beans.Lossy.class).run(context -> {
            Beans.Lossy lossy = context.getBean(Beans.Lossy.class);
            AtomicReference<Boolean> flag = new AtomicReference<>();
            Throwable thrown = forceReleaseWhileRunning(uri, lossy::untilLost, flag);
            assertThat(thrown).isInstanceOf(LockLostException.class).hasMessageContaining("lossy");
            assertThat(lossy.finished()).as("the method itself returned normally").isEqualTo(1);
        });
    }

    @Test
    void theMethodsOwnFailureCarriesTheLossAsSuppressed() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=" + uri, "holdfast.default-lease=2s").withBean(Beans.Lossy.class).run(context -> {
            Beans.Lossy lossy = context.getBean(Beans.Lossy.class);
            Throwable thrown = forceReleaseWhileRunning(uri, started -> {
                lossy.failsAfterLoss(started);
                return null;
            }, new AtomicReference<>());
            assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessage("the method's own failure");
            assertThat(thrown.getSuppressed()).singleElement().isInstanceOf(LockLostException.class);
        });
    }

    @Test
    void interruptOnLossInterruptsTheMethodAndClearsTheFlagAfterwards() {
        String uri = Runners.sqliteUri();
        Runners.starter().withPropertyValues("holdfast.uri=" + uri, "holdfast.default-lease=2s").withBean(Beans.Lossy.class).run(context -> {
            Beans.Lossy lossy = context.getBean(Beans.Lossy.class);
            AtomicReference<Throwable> seenInside = new AtomicReference<>();
            AtomicReference<Boolean> flag = new AtomicReference<>();
            Throwable thrown = forceReleaseWhileRunning(uri, started -> {
                lossy.sleepsUntilInterrupted(started, seenInside);
                return null;
            }, flag);
            assertThat(seenInside.get()).as("the sleep was interrupted").isInstanceOf(InterruptedException.class);
            assertThat(thrown).isInstanceOf(LockLostException.class);
            assertThat(thrown.getSuppressed()).singleElement().isInstanceOf(InterruptedException.class);
            assertThat(flag.get()).as("interrupt flag after the call").isFalse();
        });
    }
}
