package io.holdfast.testkit.torture.net;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Steps a server's wall clock while it runs: {@code clockstep.so}, an {@code LD_PRELOAD} library built here from
 * its C source with the machine's {@code cc} (once, cached under {@value #CACHE}), offsets
 * {@code CLOCK_REALTIME}, {@code gettimeofday} and {@code time} by the milliseconds a small file holds; the
 * monotonic clocks stay honest. Made for Debian's {@code redis-server}, which libfaketime cannot run (Redis is
 * built with jemalloc, which calls {@code clock_gettime} while libfaketime initialises: wolfcw/libfaketime#130);
 * the library never allocates and reads the real clocks with the raw system call.
 */
final class ServerClocks {
    /** Where the built library is kept, named after its source's digest. */
    static final String CACHE = "/var/tmp/holdfast-clockstep";
    private static final String SOURCE = "clockstep.c";
    private static String why; // null: not tried yet; "": the library is built

    private ServerClocks() {
    }

    /** Why server clocks cannot be stepped here (the library cannot be built: no C compiler), or null. */
    static synchronized String whyUnavailable() {
        if (why == null) {
            try {
                library();
                why = "";
            } catch (IOException | RuntimeException e) {
                why = "cannot build " + SOURCE + " with 'cc' (install gcc and libc6-dev; scripts/services does): " + e.getMessage();
            }
        }
        return why.isEmpty() ? null : why;
    }

    /** The library, built now if the cache does not have this source's build yet. */
    static synchronized Path library() throws IOException {
        byte[] source;
        try (InputStream in = ServerClocks.class.getResourceAsStream(SOURCE)) {
            if (in == null) {
                throw new IllegalStateException(SOURCE + " is missing from the testkit's resources");
            }
            source = in.readAllBytes();
        }
        String digest;
        try {
            digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(source)).substring(0, 12);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        Path dir = Files.createDirectories(Path.of(CACHE));
        Path lib = dir.resolve("clockstep-" + digest + ".so");
        if (Files.isReadable(lib)) {
            return lib;
        }
        Path c = Files.createTempFile(dir, "clockstep-", ".c");
        Path built = Files.createTempFile(dir, "clockstep-", ".so.tmp");
        try {
            Files.write(c, source);
            Commands.check("cc", "-O2", "-shared", "-fPIC", "-Wall", "-Werror", "-o", built.toString(), c.toString());
            Files.move(built, lib, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING); // another JVM may build it too
        } finally {
            Files.deleteIfExists(c);
            Files.deleteIfExists(built);
        }
        return lib;
    }

    /**
     * {@code command} run with its wall clock offset by what {@code clockFile} holds, which is reset to 0
     * (so a server started again starts honest).
     */
    static List<String> wrap(Path clockFile, List<String> command) throws IOException {
        set(clockFile, Duration.ZERO);
        List<String> all = new ArrayList<>(List.of("env", "LD_PRELOAD=" + library(), "HOLDFAST_CLOCK_FILE=" + clockFile));
        all.addAll(command);
        return all;
    }

    /** Sets the offset of the server that reads {@code clockFile}: it applies at the server's next clock reading. */
    static void set(Path clockFile, Duration offset) throws IOException {
        try (FileChannel ch = FileChannel.open(clockFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer b = ch.map(FileChannel.MapMode.READ_WRITE, 0, Long.BYTES);
            b.order(ByteOrder.LITTLE_ENDIAN).putLong(0, offset.toMillis()); // one aligned 8-byte store (atomic on x86-64)
            b.force();
        }
    }
}
