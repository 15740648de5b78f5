package io.holdfast.spring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Locked} in skip mode across two application contexts (two instances of a service, two clients) on one store:
 * while context A's call is inside the method, context B's calls skip without running (null, or
 * {@code Optional.empty()}); once A's call returned, B's runs.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LockedSkipAcrossContextsTest {

    @Test
    void theOtherContextSkipsWhileOneRunsOnSqlite() {
        skipAcrossTwoContexts("holdfast.uri=" + Runners.sqliteUri());
    }

    @Test
    void theOtherContextSkipsWhileOneRunsOnPostgres() {
        skipAcrossTwoContexts("holdfast.uri=" + Runners.POSTGRES_URI);
    }

    private static void skipAcrossTwoContexts(String store) {
        ApplicationContextRunner service = Runners.starter()
                .withPropertyValues(store, "gated.lock=gated-" + UUID.randomUUID())
                .withBean(Beans.Gated.class);
        service.run(contextA -> service.run(contextB -> {
            Beans.Gated a = contextA.getBean(Beans.Gated.class);
            Beans.Gated b = contextB.getBean(Beans.Gated.class);
            CountDownLatch aInside = new CountDownLatch(1);
            CountDownLatch aOpen = new CountDownLatch(1);
            ExecutorService caller = Executors.newSingleThreadExecutor();
            try {
                CompletableFuture<String> aCall = CompletableFuture.supplyAsync(() -> {
                    try {
                        return a.untilOpened(aInside, aOpen);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }, caller);
                assertThat(aInside.await(30, TimeUnit.SECONDS)).as("A's call is inside the method").isTrue();

                CountDownLatch bInside = new CountDownLatch(1);
                CountDownLatch opened = new CountDownLatch(0);
                assertThat(b.untilOpened(bInside, opened)).as("B's call skipped: null").isNull();
                assertThat(b.optional()).as("B's call skipped: Optional.empty()").isEmpty();
                assertThat(bInside.getCount()).as("B's body was not entered").isEqualTo(1);
                assertThat(b.runs()).as("B's bodies run").isZero();
                assertThat(aCall).as("A is still inside").isNotDone();

                aOpen.countDown();
                assertThat(aCall.get(30, TimeUnit.SECONDS)).isEqualTo("ran");
                assertThat(a.runs()).isEqualTo(1);

                assertThat(b.untilOpened(bInside, opened)).as("B runs once A returned").isEqualTo("ran");
                assertThat(b.optional()).contains("ran");
                assertThat(bInside.getCount()).isZero();
                assertThat(b.runs()).isEqualTo(2);
            } finally {
                aOpen.countDown();
                caller.shutdownNow();
            }
        }));
    }
}
