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
 * The torture run on one {@code memcached} started here; a restart loses every key, holds and token
 * counters alike. Memcached is a best-effort lock store: this test asserts only what fencing guarantees,
 * and the report says what the lock itself let through.
 */
class MemcachedTortureTest {
    private static final String MEMCACHED = "/usr/bin/memcached";
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
        LocalServer.requireExecutable(MEMCACHED, "memcached");
        int port = LoopbackPorts.unusedPort();
        server = new LocalServer("memcached 127.0.0.1:" + port,
                // memcached refuses to run as root without -u; naming the current user keeps whoever runs the tests
                List.of(MEMCACHED, "-l", "127.0.0.1", "-p", Integer.toString(port), "-U", "0", "-m", "64", "-c", "1024",
                        "-u", System.getProperty("user.name")),
                dir.resolve("memcached.log"), () -> Probes.answers(port, "version\r\n", "VERSION "));
        server.start();

        TortureResult r = TortureRuns.run(TortureRuns.settings("memcached", "memcached://127.0.0.1:" + port + "?prefix=torture:",
                Fault.SINGLE_SERVER)
                // Long critical sections and an instant restart: the store comes back empty while the holder is
                // still between its read and its write, so another client can take the lock beside it.
                .think(Duration.ofMillis(400)).restartDowntime(Duration.ZERO).build(), server);

        TortureRuns.assertFencedCounterExactUnderEveryFault(r, Fault.SINGLE_SERVER);
    }
}
