package io.holdfast.jdbc;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Test;
import io.holdfast.testkit.LockConformanceSuite;
import io.holdfast.testkit.StoreOutage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The conformance suite on a SQLite file in a temporary directory of this class. The outage is another
 * connection holding the file's write lock; the unreachable store is a file under {@code /proc}, where
 * no directory can be created.
 */
class SqliteConformanceTest extends LockConformanceSuite {
    private static final String TABLE = TestTables.fresh();
    private static final String UNREACHABLE = "/proc/holdfast/x.db";
    private static Path directory;

    @BeforeAll
    static void createDirectory() throws IOException {
        directory = Files.createTempDirectory("holdfast-sqlite-conformance");
    }

    @AfterAll
    static void deleteDirectory() throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    private static Path file() {
        return directory.resolve("locks.db");
    }

    @Override
    protected String uri() {
        return "sqlite:" + file() + "?table=" + TABLE;
    }

    @Override
    protected String unreachableUri() {
        return "sqlite:" + UNREACHABLE + "?table=" + TABLE;
    }

    @Override
    protected String unreachableAddressHint() {
        return UNREACHABLE;
    }

    @Override
    protected StoreOutage outage() {
        return new SqliteWriterLockout(file(), uri() + "&busyTimeout=300ms");
    }

    /** The killed-leader election runs here: the waiting candidate learns of the free lock by polling with backoff. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aKilledLeaderProcessIsSucceededOnceItsLeaseRunsOut() throws Exception {
        killedLeaderProcessIsSucceededOnceItsLeaseRunsOut();
    }
}
