package io.holdfast.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/** Connections to a server database from a HikariCP pool. */
final class PooledConnections implements ConnectionSource {
    private final HikariDataSource pool;

    /**
     * Connects once outside the pool first, so that a refused connection, a missing database or a wrong role
     * fails at once with the driver's own error (the pool would retry for the whole connect timeout).
     *
     * @throws SQLException the driver's error when that first connection fails
     */
    PooledConnections(JdbcUri uri) throws SQLException {
        Properties properties = new Properties();
        long connectSeconds = Math.max(1, uri.connectTimeout.toSeconds());
        if (uri.kind.equals(JdbcUri.POSTGRESQL)) {
            properties.setProperty("connectTimeout", Long.toString(connectSeconds));
            properties.setProperty("socketTimeout", "30");
            properties.setProperty("ApplicationName", "holdfast");
        } else {
            properties.setProperty("connectTimeout", Long.toString(uri.connectTimeout.toMillis()));
            properties.setProperty("socketTimeout", "30000");
        }
        DriverManager.getConnection(uri.jdbcUrl, properties).close();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(uri.jdbcUrl);
        config.setPoolName("holdfast-" + uri.kind);
        config.setMaximumPoolSize(uri.poolSize);
        config.setMinimumIdle(Math.min(2, uri.poolSize));
        config.setConnectionTimeout(uri.connectTimeout.toMillis());
        // Fail at connect, not at the first acquire, when the database is unreachable.
        config.setInitializationFailTimeout(uri.connectTimeout.toMillis());
        config.setAutoCommit(true);
        config.setDataSourceProperties(properties);
        if (!uri.kind.equals(JdbcUri.POSTGRESQL)) {
            config.setConnectionInitSql("SET time_zone = '+00:00'");
        }
        this.pool = new HikariDataSource(config);
    }

    @Override
    public <T> T with(Work<T> work) throws SQLException {
        try (Connection c = pool.getConnection()) {
            return work.run(c);
        }
    }

    /** A connection the caller keeps (a native hold pins it); give it back with close() or {@link #discard}. */
    Connection borrow() throws SQLException {
        return pool.getConnection();
    }

    /** Closes a borrowed connection for good, ending its database session (and the session's locks). */
    void discard(Connection c) {
        pool.evictConnection(c);
    }

    @Override
    public void close() {
        pool.close();
    }
}
