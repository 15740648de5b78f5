package io.holdfast.jdbc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One connection to the SQLite file, used by one thread at a time (SQLite runs one writer at a time
 * anyway). WAL journal so readers never block, {@code synchronous=FULL} so an issued fencing token
 * survives a power loss, and a busy timeout for other processes' writes.
 */
final class SqliteConnection implements ConnectionSource {
    private final ReentrantLock lock = new ReentrantLock();
    private final Connection connection;

    SqliteConnection(JdbcUri uri) throws SQLException {
        Path file = Paths.get(uri.address);
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
        } catch (java.io.IOException | SecurityException e) {
            throw new SQLException("cannot create the directory for " + file + ": " + e.getMessage(), "08001", e);
        }
        // The SQLite driver itself, not DriverManager, which would load and initialise every JDBC driver on the
        // class path (the PostgreSQL and MariaDB ones in the holdfast tool) to open one file.
        Connection c = new org.sqlite.JDBC().connect(uri.jdbcUrl, new Properties());
        try (Statement st = c.createStatement()) {
            st.execute("PRAGMA busy_timeout = " + uri.busyTimeout.toMillis());
            st.execute("PRAGMA journal_mode = WAL");
            st.execute("PRAGMA synchronous = FULL");
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        this.connection = c;
    }

    @Override
    public <T> T with(Work<T> work) throws SQLException {
        lock.lock();
        try {
            return work.run(connection);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            connection.close();
        } catch (SQLException e) {
            // closing; nothing to do
        } finally {
            lock.unlock();
        }
    }
}
