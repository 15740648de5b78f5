package io.holdfast.testkit.torture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JVM started the way the torture runner starts a client with a skewed clock ({@link ClockSkew}, real
 * libfaketime): its wall clock is off by the offset, its monotonic clock is the machine's, and its timed
 * waits last as long as asked (libfaketime's own monotonic fix, which this glibc would turn on, makes them
 * return at once; {@code FAKETIME_FORCE_MONOTONIC_FIX=0} is what keeps them honest).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ClockSkewTest {
    @Test
    void aSkewedJvmHasItsWallClockOffButItsMonotonicClockAndTimedWaitsHonest() throws Exception {
        assertThat(ClockSkew.whyUnavailable()).as("libfaketime (scripts/services installs the faketime package)").isNull();
        for (Duration offset : List.of(Duration.ofSeconds(30), Duration.ofSeconds(-30))) {
            List<String> cmd = new ArrayList<>(ClockSkew.prefix(offset));
            cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx32m", "-XX:TieredStopAtLevel=1",
                    "-cp", System.getProperty("java.class.path"), ClockProbe.class.getName()));
            long wallBefore = System.currentTimeMillis();
            long nanosBefore = System.nanoTime();
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the skewed JVM ends").isTrue();
            long nanosAfter = System.nanoTime();
            long wallAfter = System.currentTimeMillis();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as("exit status; output:\n%s", out).isZero();
            String[] first = out.lines().filter(l -> l.startsWith("wall ")).findFirst().orElseThrow().split(" ");
            long wall = Long.parseLong(first[1]);
            long instantMillis = Long.parseLong(first[3]) / 1_000;
            long nanos = Long.parseLong(first[5]);
            long off = offset.toMillis();
            assertThat(wall).as("currentTimeMillis, %s off", offset).isBetween(wallBefore + off, wallAfter + off);
            assertThat(instantMillis).as("Instant.now(), %s off", offset).isBetween(wallBefore + off, wallAfter + off);
            assertThat(nanos).as("nanoTime: the machine's monotonic clock, as in this JVM").isBetween(nanosBefore, nanosAfter);
            String[] waits = out.lines().filter(l -> l.startsWith("waits ")).findFirst().orElseThrow().split(" ");
            for (int i = 1; i <= 4; i++) {
                assertThat(Long.parseLong(waits[i])).as("timed wait %d of 200 ms (sleep, parkNanos, Object.wait, poll), output:\n%s", i, out)
                        .isGreaterThanOrEqualTo(199);
            }
        }
    }
}
