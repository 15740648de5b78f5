package io.holdfast.memcached;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients that use a name for the first time at the same instant race to create its token counter: the
 * server creates it for one client's incr and answers the others that it exists. That answer is a lost
 * race, not an error: each attempt must still come back acquired or busy.
 */
class FirstUseRaceTest {
    private static MemcachedServer server;

    @BeforeAll
    static void startServer() {
        server = MemcachedServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void eightClientsFirstAttemptsOnFreshNamesAllAnswer() throws Exception {
        int clients = 8;
        List<Holdfast> holdfasts = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        String run = UUID.randomUUID().toString().substring(0, 8);
        try {
            for (int i = 0; i < clients; i++) {
                holdfasts.add(Holdfast.connect("memcached://127.0.0.1:" + server.port + "?prefix=race:"));
            }
            for (int round = 0; round < 60; round++) {
                String name = "fresh/" + run + "/" + round;
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Optional<Hold>>> attempts = new ArrayList<>();
                for (Holdfast h : holdfasts) {
                    attempts.add(pool.submit(() -> {
                        go.await();
                        return h.lock(name).tryAcquire();
                    }));
                }
                go.countDown();
                List<Hold> holds = new ArrayList<>();
                for (Future<Optional<Hold>> f : attempts) {
                    f.get(30, TimeUnit.SECONDS).ifPresent(holds::add); // an ExecutionException here is the bug
                }
                assertThat(holds).as("round %d: holders among 8 simultaneous first attempts", round).hasSizeLessThanOrEqualTo(1);
                for (Hold hold : holds) {
                    hold.close();
                }
            }
        } finally {
            pool.shutdownNow();
            holdfasts.forEach(Holdfast::close);
        }
    }
}
