package io.holdfast.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.SQLException;

/** Connections to a server database from a HikariCP pool. */
final class PooledConnections implements ConnectionSource {
    private final HikariDataSource pool;

    PooledConnections(JdbcUri uri) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(uri.jdbcUrl);
        config.setPoolName("holdfast-" + uri.kind);
        config.setMaximumPoolSize(uri.poolSize);
        config.setMinimumIdle(Math.min(2, uri.poolSize));
        config.setConnectionTimeout(uri.connectTimeout.toMillis());
        // Fail at connect, not at the first acquire, when the database is unreachable.
        config.setInitializationFailTimeout(uri.connectTimeout.toMillis());
        config.setAutoCommit(true);
        long connectSeconds = Math.max(1, uri.connectTimeout.toSeconds());
        if (uri.kind.equals(JdbcUri.POSTGRESQL)) {
            config.addDataSourceProperty("connectTimeout", connectSeconds);
            config.addDataSourceProperty("socketTimeout", 30);
            config.addDataSourceProperty("ApplicationName", "holdfast");
        } else {
            config.addDataSourceProperty("connectTimeout", uri.connectTimeout.toMillis());
            config.addDataSourceProperty("socketTimeout", 30_000);
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
