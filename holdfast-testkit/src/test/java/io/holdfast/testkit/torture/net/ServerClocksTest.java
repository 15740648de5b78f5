package io.holdfast.testkit.torture.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Debian's {@code redis-server} (jemalloc inside, which libfaketime cannot run) started under {@link ServerClocks}:
 * it starts, its {@code TIME} follows the steps written to its clock file at once, and a key's expiry follows its
 * clock: a step past the key's TTL expires it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ServerClocksTest {
    @TempDir
    Path dir;

    @Test
    void aSteppedRedisServerReadsTheSteppedClockAndExpiresKeysByIt() throws Exception {
        assertThat(ServerClocks.whyUnavailable()).as("the clockstep library builds (scripts/services installs gcc and libc6-dev)").isNull();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path clock = dir.resolve("redis.clock");
        List<String> cmd = ServerClocks.wrap(clock, List.of("/usr/bin/redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString()));
        Process redis = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!cli(port, "PING").equals("PONG")) {
                assertThat(redis.isAlive()).as("redis-server runs under clockstep").isTrue();
                assertThat(System.nanoTime() - deadline).as("redis-server answers within 30 s").isNegative();
                Thread.sleep(50);
            }
            assertThat(cli(port, "SET", "k", "v", "PX", "10000")).isEqualTo("OK");
            long honest = serverSeconds(port);
            assertThat(honest).as("TIME before any step").isBetween(now() - 2, now() + 2);

            ServerClocks.set(clock, Duration.ofSeconds(20));
            assertThat(serverSeconds(port)).as("TIME after a 20 s step ahead").isBetween(now() + 18, now() + 22);
            assertThat(cli(port, "GET", "k")).as("a key with 10 s to live, after the server's clock stepped 20 s ahead").isEmpty();

            ServerClocks.set(clock, Duration.ofSeconds(-20));
            assertThat(serverSeconds(port)).as("TIME after a step to 20 s behind").isBetween(now() - 22, now() - 18);
        } finally {
            redis.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    private static long serverSeconds(int port) throws Exception {
        return Long.parseLong(cli(port, "TIME").lines().findFirst().orElseThrow().trim());
    }

    private static String cli(int port, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("redis-cli", "-p", Integer.toString(port)));
        cmd.addAll(List.of(args));
        return Commands.run(cmd, null).output();
    }
}
