package io.holdfast.redis;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.StoreUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Redlock over 5 masters when masters die (SIGKILL): a majority keeps it going, a minority refuses. */
class RedlockTest {

    /**
     * Eight clients do read-sleep-write on a plain counter under the lock; two of the five masters are killed
     * a third of the way through. The count stays exact, never two inside at once, tokens keep increasing.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void exclusionHoldsWithTwoOfFiveMastersKilled() throws Exception {
        int clients = 8;
        int rounds = 15;
        try (RedlockServers servers = new RedlockServers(5)) {
            String uri = servers.uri("prefix=redlock:&timeout=1s");
            String name = "redlock/exclusion";
            int[] counter = {0};
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger most = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch thirdDone = new CountDownLatch(clients * rounds / 3);
            List<Holdfast> holdfasts = new ArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(clients);
            try {
                for (int i = 0; i < clients; i++) {
                    holdfasts.add(Holdfast.connect(uri));
                }
                List<Future<?>> workers = new ArrayList<>();
                for (Holdfast h : holdfasts) {
                    workers.add(threads.submit(() -> {
                        for (int r = 0; r < rounds; r++) {
                            try (Hold hold = h.lock(name).acquire(Duration.ofSeconds(60))) {
                                most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                                int read = counter[0];
                                tokens.add(hold.fencingToken());
                                Thread.sleep(2);
                                counter[0] = read + 1;
                                inside.decrementAndGet();
                            }
                            done.incrementAndGet();
                            thirdDone.countDown();
                        }
                        return null;
                    }));
                }
                assertThat(thirdDone.await(120, TimeUnit.SECONDS)).as("a third of the rounds done within 120s").isTrue();
                int before = done.get();
                servers.masters.get(0).kill();
                servers.masters.get(3).kill();
                for (Future<?> w : workers) {
                    w.get(200, TimeUnit.SECONDS);
                }
                System.out.printf("redlock: %d critical sections, %d of them after 2 of 5 masters were killed; counter %d%n",
                        clients * rounds, clients * rounds - before, counter[0]);
                assertThat(most.get()).as("holders inside at once, at most").isEqualTo(1);
                assertThat(counter[0]).isEqualTo(clients * rounds);
                assertThat(clients * rounds - before).as("critical sections after the kill").isPositive();
                for (int i = 1; i < tokens.size(); i++) {
                    assertThat(tokens.get(i)).as("token %d vs the one before", i).isGreaterThan(tokens.get(i - 1));
                }
            } finally {
                threads.shutdownNow();
                holdfasts.forEach(Holdfast::close);
            }
        }
    }

    /**
     * With three of five masters killed no majority is possible: acquires fail with a
     * {@link StoreUnavailableException} (never a silent false) and leave no key on the survivors; a hold taken
     * before the kill is reported lost once its renewals cannot reach a majority.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void refusesWithThreeOfFiveMastersKilled() throws Exception {
        try (RedlockServers servers = new RedlockServers(5);
             Holdfast holder = Holdfast.connect(servers.uri("prefix=redlock:&timeout=1s"));
             Holdfast other = Holdfast.connect(servers.uri("prefix=redlock:&timeout=1s"))) {
            Hold held = holder.lock("redlock/held", Duration.ofSeconds(2), true).acquire(Duration.ofSeconds(10));
            CountDownLatch lost = new CountDownLatch(1);
            held.onLost((h, why) -> lost.countDown());
            for (int i : new int[] {0, 2, 4}) {
                servers.masters.get(i).kill();
            }
            assertThatThrownBy(() -> other.lock("redlock/refused").tryAcquire()).isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("majority");
            assertThatThrownBy(() -> other.lock("redlock/refused").tryAcquire(Duration.ofSeconds(1)))
                    .isInstanceOf(StoreUnavailableException.class);
            for (int i : new int[] {1, 3}) {
                assertThat(servers.masters.get(i).call("EXISTS", "redlock:{redlock/refused}")).as("key left on a survivor").isEqualTo(0L);
            }
            assertThat(lost.await(30, TimeUnit.SECONDS)).as("the hold taken before the kill reported lost").isTrue();
            assertThat(held.isValid()).isFalse();
        }
    }

    /**
     * Tokens stay above every earlier one when the master whose counter ran ahead (grants to attempts that
     * failed elsewhere) is gone: the second round raised the counters of the whole majority.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void tokensStayMonotonicWhenTheMasterWithTheHighestCounterDies() throws Exception {
        try (RedlockServers servers = new RedlockServers(5);
             Holdfast client = Holdfast.connect(servers.uri("prefix=redlock:&timeout=1s"))) {
            String name = "redlock/tokens";
            long first;
            try (Hold hold = client.lock(name).acquire(Duration.ofSeconds(10))) {
                first = hold.fencingToken();
            }
            long ahead = first + 1_000_000_000L;
            assertThat(servers.masters.get(2).call("SET", "redlock:{" + name + "}:token", Long.toString(ahead))).isEqualTo("OK");
            long second;
            try (Hold hold = client.lock(name).acquire(Duration.ofSeconds(10))) {
                second = hold.fencingToken();
            }
            servers.masters.get(2).kill();
            long third;
            try (Hold hold = client.lock(name).acquire(Duration.ofSeconds(10))) {
                third = hold.fencingToken();
            }
            System.out.printf("redlock tokens: %d, then %d (one master's counter set to %d), then %d after that master died%n",
                    first, second, ahead, third);
            assertThat(second).isGreaterThan(ahead);
            assertThat(third).as("token after the master with the highest counter died").isGreaterThan(second);
        }
    }
}
