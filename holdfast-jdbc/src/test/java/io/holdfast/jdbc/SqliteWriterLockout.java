package io.holdfast.jdbc;

import io.holdfast.testkit.StoreOutage;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * An outage of a SQLite lock file for one client: another connection takes the file's write lock with
 * {@code BEGIN EXCLUSIVE} and keeps it, so that the client's writes (renewals) fail once its short busy
 * timeout runs out. In WAL mode readers still read, so other clients can inspect the locks meanwhile.
 */
final class SqliteWriterLockout implements StoreOutage {
    private final Path file;
    private final String clientUri;
    private Connection blocker;

    SqliteWriterLockout(Path file, String clientUri) {
        this.file = file;
        this.clientUri = clientUri;
    }

    @Override
    public String clientUri() {
        return clientUri;
    }

    @Override
    public synchronized void begin() {
        if (blocker != null) {
            return;
        }
        try {
            Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
            try (Statement st = c.createStatement()) {
                st.execute("PRAGMA busy_timeout = 10000"); // wait out a write in flight, then hold the lock
                st.execute("BEGIN EXCLUSIVE");
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            blocker = c;
        } catch (SQLException e) {
            throw new IllegalStateException("could not take the write lock of " + file, e);
        }
    }

    @Override
    public synchronized void end() {
        if (blocker == null) {
            return;
        }
        try (Connection c = blocker; Statement st = c.createStatement()) {
            st.execute("ROLLBACK");
        } catch (SQLException e) {
            throw new IllegalStateException("could not give back the write lock of " + file, e);
        } finally {
            blocker = null;
        }
    }

    @Override
    public void close() {
        end();
    }
}
