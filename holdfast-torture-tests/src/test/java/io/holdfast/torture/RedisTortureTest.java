package io.holdfast.torture;

import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.TortureResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

/**
 * The torture run on one {@code redis-server} started here without persistence, so a restart forgets
 * every hold (the failover case of a single node). Redis is a best-effort lock store: this test asserts
 * only what fencing guarantees, and the report says what the lock itself let through.
 */
class RedisTortureTest {
    private static final String REDIS_SERVER = "/usr/bin/redis-server";
    @TempDir
    Path dir;
    private LocalServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void fencedCounterStaysExactUnderKillsPausesRestartsAndPartitions() throws Exception {
        LocalServer.requireExecutable(REDIS_SERVER, "redis-server");
        int port = LoopbackPorts.unusedPort();
        server = new LocalServer("redis-server 127.0.0.1:" + port + " (no persistence)",
                List.of(REDIS_SERVER, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(),
                        "--save", "", "--appendonly", "no", "--daemonize", "no"),
                dir.resolve("redis.log"), () -> Probes.answers(port, "PING\r\n", "+PONG"));
        server.start();

        TortureResult r = TortureRuns.run(TortureRuns.settings("redis", "redis://127.0.0.1:" + port + "?prefix=torture:&timeout=1s",
                Fault.SINGLE_SERVER)
                // Long critical sections and an instant restart: the store comes back empty while the holder is
                // still between its read and its write, so another client can take the lock beside it.
                .think(Duration.ofMillis(400)).restartDowntime(Duration.ZERO).build(), server);

        TortureRuns.assertFencedCounterExactUnderEveryFault(r, Fault.SINGLE_SERVER);
    }
}
