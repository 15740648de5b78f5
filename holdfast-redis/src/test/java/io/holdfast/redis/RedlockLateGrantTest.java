package io.holdfast.redis;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.spi.SafetyMargin;
import io.holdfast.testkit.LoopbackProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding 21 (../shared/reviews/core-jdbc-redis.md), Redlock: a grant counts only if it arrives in time
 * and with at least the larger of the clock-drift allowance and the core's safety margin left of its lease;
 * every grant that does not count is given back, also on a master that answers too late to hear the give-back.
 */
class RedlockLateGrantTest {
    private static final Duration LEASE = Duration.ofSeconds(15);

    /**
     * Five masters; another client holds the lock on three of them (A, D, E). This client's attempt reaches
     * the other two (B, C) through proxies that let the acquire through and then hold everything: B and C grant
     * the lock, but their answers, and the give-back the attempt sends them after it stops waiting, are held.
     * The attempt ends refused (three masters answered busy). Then the links break (what was held is lost) and
     * come back: the grants that did not count must be given back by this client, not left to run out their
     * lease, during which nobody else could have used B and C for this lock.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void lateGrantsOfARefusedAttemptAreGivenBackNotLeftToExpire() throws Exception {
        try (RedlockServers servers = new RedlockServers(5);
             LoopbackProxy toB = new LoopbackProxy("127.0.0.1", servers.masters.get(1).port);
             LoopbackProxy toC = new LoopbackProxy("127.0.0.1", servers.masters.get(2).port)) {
            RedisServer a = servers.masters.get(0);
            RedisServer b = servers.masters.get(1);
            RedisServer c = servers.masters.get(2);
            RedisServer d = servers.masters.get(3);
            RedisServer e = servers.masters.get(4);
            String name = "redlock/late";
            String key = "late:{" + name + "}";
            String mine = "redlock://" + String.join(",", List.of(a.address(), "127.0.0.1:" + toB.port(), "127.0.0.1:" + toC.port(),
                    d.address(), e.address())) + "?prefix=late:&timeout=500ms";
            String theirs = "redlock://" + String.join(",", List.of(a.address(), d.address(), e.address())) + "?prefix=late:";
            try (Holdfast other = Holdfast.connect(theirs);
                 Holdfast client = Holdfast.connect(mine)) {
                Hold held = other.lock(name, Duration.ofSeconds(60), true).acquire(Duration.ofSeconds(10));

                toB.stallAfterNextRequest();
                toC.stallAfterNextRequest();
                Optional<Hold> attempt = client.lock(name, LEASE, true).tryAcquire();
                assertThat(attempt).as("an attempt three of five masters refused").isEmpty();
                assertThat(b.call("EXISTS", key)).as("B granted the attempt, too late to count").isEqualTo(1L);
                assertThat(c.call("EXISTS", key)).as("C granted the attempt, too late to count").isEqualTo(1L);

                for (LoopbackProxy link : List.of(toB, toC)) {
                    link.cut(); // the held answers and give-backs are lost with the connections
                    link.unstall();
                    link.restore(); // new connections get through
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!Long.valueOf(0).equals(b.call("EXISTS", key)) || !Long.valueOf(0).equals(c.call("EXISTS", key))) {
                    assertThat(System.nanoTime() < deadline).as("B and C free the lock within 60s").isTrue();
                    RedisServer.sleep(50);
                }
                assertThat(b.infoField("stats", "expired_keys")).as("keys that ran out their lease on B").isEqualTo("0");
                assertThat(c.infoField("stats", "expired_keys")).as("keys that ran out their lease on C").isEqualTo("0");
                assertThat(held.isValid()).as("the other client's hold, untouched").isTrue();
                held.close();
            }
        }
    }

    /**
     * The validity rule itself: a grant that counts leaves at least the core's safety margin of its lease, so
     * the hold is never past its local deadline when the acquire returns (with only Redlock's drift allowance,
     * 1% + 2 ms, a 1 s grant could count after 0.98 s although the core's deadline is at 0.75 s). Slow masters
     * cannot get there (two rounds of at most a third of the lease each), so no server test reaches this bound;
     * it stands against a pause of the acquiring process between the rounds.
     */
    @Test
    void aGrantThatCountsLeavesTheCoresSafetyMargin() {
        for (long ms : new long[] {100, 250, 999, 1_000, 2_000, 5_000, 15_000, 30_000, 60_000, 3_600_000, Duration.ofDays(7).toMillis()}) {
            Duration lease = Duration.ofMillis(ms);
            long drift = lease.toNanos() / 100 + TimeUnit.MILLISECONDS.toNanos(2);
            assertThat(RedlockStore.validNanos(lease)).as("time a grant of a %d ms lease may take", ms)
                    .isLessThanOrEqualTo(lease.toNanos() - SafetyMargin.nanos(lease.toNanos()))
                    .isLessThanOrEqualTo(lease.toNanos() - drift)
                    .isGreaterThan(lease.toNanos() * 2 / 3);
        }
    }
}
