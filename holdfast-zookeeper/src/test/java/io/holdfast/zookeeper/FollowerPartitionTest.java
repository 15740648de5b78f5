package io.holdfast.zookeeper;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding Z1: the holder and the follower it is connected to are cut off together from the
 * leader and the other follower. The follower keeps answering reads until its own sync timeout, and the
 * leader hears of the holder's session only through that follower's pings; the leader expires the
 * session and the contender, on the majority side, acquires. By then the holder's hold must have turned
 * invalid: its renewals must prove that the leader heard them.
 */
class FollowerPartitionTest {

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aHolderCutOffWithItsFollowerIsInvalidBeforeTheMajoritySideGrantsTheLock() throws Exception {
        try (ProxiedEnsemble ensemble = new ProxiedEnsemble()) {
            assertThat(ensemble.state(1)).as("server 1 (the holder's) follows").isEqualTo("FOLLOWING");
            String name = "partition/" + UUID.randomUUID();
            Duration lease = Duration.ofSeconds(6);
            try (Holdfast holder = Holdfast.connect("zookeeper://127.0.0.1:" + ensemble.clientPort(1) + "/partition");
                 Holdfast contender = Holdfast.connect("zookeeper://127.0.0.1:" + ensemble.clientPort(2) + "/partition")) {
                Hold hold = holder.lock(name, lease, true).acquire(Duration.ofSeconds(20));
                AtomicLong lostAt = new AtomicLong();
                hold.onLost((h, why) -> lostAt.set(System.nanoTime()));
                AtomicBoolean holderValidWhenContenderAcquired = new AtomicBoolean();
                AtomicLong acquiredAt = new AtomicLong();
                CompletableFuture<Hold> next = contender.lock(name, lease, true).acquireAsync(Duration.ofSeconds(60)).thenApply(h -> {
                    holderValidWhenContenderAcquired.set(hold.isValid());
                    acquiredAt.set(System.nanoTime());
                    return h;
                });
                Thread.sleep(lease.toMillis() / 3 + 700); // at least one renewal before the cut
                assertThat(next.isDone()).as("the contender got the lock while the holder held it").isFalse();
                assertThat(hold.isValid()).as("the hold before the cut").isTrue();

                ensemble.isolateServer1();
                long cutAt = System.nanoTime();

                Hold nextHold = next.get(60, TimeUnit.SECONDS);
                System.out.printf("follower partition: contender acquired %d ms after the cut; holder's hold valid then: %s;"
                                + " holder told of the loss %d ms after the cut%n",
                        TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - cutAt), holderValidWhenContenderAcquired.get(),
                        lostAt.get() == 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(lostAt.get() - cutAt));
                assertThat(holderValidWhenContenderAcquired.get())
                        .as("the holder's hold was still valid when the contender acquired (two valid holders)").isFalse();
                assertThat(nextHold.fencingToken()).isGreaterThan(hold.fencingToken());
                nextHold.close();
            }
        }
    }
}
