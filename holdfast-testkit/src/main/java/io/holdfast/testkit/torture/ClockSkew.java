package io.holdfast.testkit.torture;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Starts a client JVM whose wall clock is off by a fixed offset, with libfaketime ({@code LD_PRELOAD},
 * Debian's {@code libfaketime} package): {@code System.currentTimeMillis()} and {@code Instant.now()} are
 * skewed, {@code System.nanoTime()} is not. Measured with OpenJDK 17 and libfaketime 0.9.10 (testkit
 * README, "Clock skew"):
 * <ul>
 * <li>{@code FAKETIME_DONT_FAKE_MONOTONIC=1} keeps {@code CLOCK_MONOTONIC}, and so {@code nanoTime()}, honest
 *     (without it libfaketime fakes it too);</li>
 * <li>{@code FAKETIME_FORCE_MONOTONIC_FIX=0}: with the fix libfaketime turns on by itself on this glibc, every
 *     timed {@code LockSupport.parkNanos} and {@code Object.wait} returns at once (the JVM's timed waits spin);
 *     without it they wait as long as asked;</li>
 * <li>only an offset: a rate ({@code x1.5}) makes the first {@code Thread.sleep} of the JVM never return
 *     with the fix off, and every timed wait return at once with it on.</li>
 * </ul>
 * The multi-threaded library ({@code libfaketimeMT.so.1}) is used: a JVM has many threads.
 */
final class ClockSkew {
    private static final List<Path> SEARCHED = List.of(Path.of("/usr/lib"), Path.of("/usr/local/lib"), Path.of("/usr/lib64"));

    private ClockSkew() {
    }

    /** libfaketime's multi-threaded library, or null if none is installed. */
    static Path library() {
        for (Path dir : SEARCHED) {
            Path direct = dir.resolve("faketime").resolve("libfaketimeMT.so.1");
            if (Files.isReadable(direct)) {
                return direct;
            }
            if (Files.isDirectory(dir)) { // Debian: /usr/lib/<multiarch triplet>/faketime/
                try (DirectoryStream<Path> arches = Files.newDirectoryStream(dir, "*-linux-gnu*")) {
                    for (Path arch : arches) {
                        Path lib = arch.resolve("faketime").resolve("libfaketimeMT.so.1");
                        if (Files.isReadable(lib)) {
                            return lib;
                        }
                    }
                } catch (IOException e) {
                    // not readable: look on
                }
            }
        }
        return null;
    }

    /** Why this machine cannot skew a client's clock, or null if it can. */
    static String whyUnavailable() {
        return library() == null ? "libfaketimeMT.so.1 is missing: install the faketime package (scripts/services does)" : null;
    }

    /** libfaketime's spelling of an offset: {@code +30s}, {@code -30s}. */
    static String spec(Duration offset) {
        return (offset.isNegative() ? "-" : "+") + offset.abs().toSeconds() + "s";
    }

    /** The words that start {@code java ...} with its wall clock off by {@code offset} ({@code env}, which execs: the pid stays the JVM's). */
    static List<String> prefix(Duration offset) {
        Path lib = library();
        if (lib == null) {
            throw new IllegalStateException("cannot skew a client's clock: " + whyUnavailable());
        }
        return List.of("env", "LD_PRELOAD=" + lib, "FAKETIME=" + spec(offset), "FAKETIME_DONT_FAKE_MONOTONIC=1",
                "FAKETIME_FORCE_MONOTONIC_FIX=0");
    }
}
