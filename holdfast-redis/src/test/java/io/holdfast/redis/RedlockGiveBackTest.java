package io.holdfast.redis;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Found by the redlock5 torture topology (CI, 26 Nov 2026: two valid holds and a lost update 27 ms apart, both
 * granted after a killed master came back): a waiter's attempt that did not count gives its grants back, and a
 * master that fails to answer the give-back is asked again in the background. The waiter then tried again and
 * won with that master in its majority; the background give-back, still retried, freed the waiter's new grant
 * there, and a second client formed a majority with that master. A give-back must never free what a later
 * attempt of the same owner won.
 */
class RedlockGiveBackTest {

    /**
     * Five masters A to E. Another client holds the lock on A, D and E. On B this client's default user may not
     * run {@code DEL}, so B grants the waiter's attempts (the acquire script needs no {@code DEL}) but every
     * give-back of them fails there and is retried in the background. The lock is freed on A, D and E: the
     * waiter wins with all five, re-granting its own grant on B. Once B allows {@code DEL} again, the retried
     * give-backs reach it; the waiter's hold on B must stay.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aRetriedGiveBackOfAnEarlierAttemptNeverFreesTheOwnersLaterGrant() throws Exception {
        try (RedlockServers servers = new RedlockServers(5)) {
            RedisServer a = servers.masters.get(0);
            RedisServer b = servers.masters.get(1);
            RedisServer d = servers.masters.get(3);
            RedisServer e = servers.masters.get(4);
            String name = "redlock/giveback";
            String key = "gb:{" + name + "}";
            String mine = servers.uri("prefix=gb:&timeout=500ms");
            String theirs = "redlock://" + String.join(",", List.of(a.address(), d.address(), e.address())) + "?prefix=gb:";
            try (Holdfast other = Holdfast.connect(theirs);
                 Holdfast client = Holdfast.connect(mine)) {
                Hold held = other.lock(name, Duration.ofSeconds(60), true).acquire(Duration.ofSeconds(10));
                assertThat(b.call("ACL", "SETUSER", "default", "-del")).isEqualTo("OK");

                // A lease long enough that the background give-backs are still being retried when B allows DEL again.
                CompletableFuture<Hold> waiter = client.lock(name, Duration.ofSeconds(60), true).acquireAsync(Duration.ofSeconds(60));
                awaitTrue("B granted the waiter's attempt", () -> Long.valueOf(1).equals(b.call("EXISTS", key)));
                awaitTrue("a give-back failed on B (NOPERM in B's ACL LOG), so it is retried in the background",
                        () -> String.valueOf(b.call("ACL", "LOG")).contains("del"));

                held.close();
                Hold won = waiter.get(30, TimeUnit.SECONDS);
                assertThat(won.isValid()).isTrue();
                assertThat(String.valueOf(b.call("GET", key))).as("B's hold is the winner's").contains("\"t\":\"" + won.fencingToken() + "\"");

                assertThat(b.call("ACL", "SETUSER", "default", "+del")).isEqualTo("OK");
                // The retries run every 200 ms: 15 of their periods.
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() < until) {
                    assertThat(b.call("EXISTS", key)).as("the winner's grant on B, after B allowed DEL again").isEqualTo(1L);
                    Thread.sleep(20);
                }
                assertThat(won.isValid()).isTrue();
                won.close();
                assertThat(b.call("EXISTS", key)).as("the winner's own release frees B").isEqualTo(0L);
            }
        }
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void awaitTrue(String what, Check check) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!check.holds()) {
            assertThat(System.nanoTime() < deadline).as(what + " within 30 s").isTrue();
            Thread.sleep(20);
        }
    }
}
