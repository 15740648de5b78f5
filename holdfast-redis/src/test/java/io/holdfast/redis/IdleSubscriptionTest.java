package io.holdfast.redis;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding 15: a client that waited on many distinct names keeps no wake-up subscription once the
 * linger after each wait has passed, without any later wait having to come along and sweep them.
 */
class IdleSubscriptionTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void idleWakeUpChannelsAreDroppedAfterTheirLinger() throws Exception {
        ReleaseWatches.lingerNanos = TimeUnit.MILLISECONDS.toNanos(300);
        try (RedisServer server = RedisServer.start();
             Holdfast holder = Holdfast.connect("redis://" + server.address() + "?prefix=idle:");
             Holdfast waiter = Holdfast.connect("redis://" + server.address() + "?prefix=idle:")) {
            List<Hold> held = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                String name = "orders/" + i;
                held.add(holder.lock(name).acquire(Duration.ofSeconds(5)));
                assertThat(waiter.lock(name).tryAcquire(Duration.ofMillis(30))).isEmpty(); // subscribes, then gives up
            }
            int right = channels(server);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (channels(server) > 0 && System.nanoTime() - until < 0) {
                Thread.sleep(100);
            }
            System.out.printf("wake-up channels subscribed: %d right after 100 waits, %d once the 300 ms linger passed%n",
                    right, channels(server));
            assertThat(right).as("channels subscribed right after the waits").isPositive();
            assertThat(channels(server)).as("channels still subscribed well after the linger, with no further wait").isZero();
            for (Hold h : held) {
                h.close();
            }
        } finally {
            ReleaseWatches.lingerNanos = ReleaseWatches.LINGER.toNanos();
        }
    }

    private static int channels(RedisServer server) throws Exception {
        Object reply = server.call("PUBSUB", "SHARDCHANNELS", "idle:*");
        return reply instanceof List<?> list ? list.size() : -1;
    }
}
