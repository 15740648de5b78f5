package io.holdfast.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** Connection pools for the incumbents and the SQL floors, sized like Holdfast's own. */
final class Pools {
    /** Holdfast's {@code poolSize} in the PostgreSQL rows, and so every PostgreSQL library's pool size. */
    static final int SIZE = 4;

    private Pools() {
    }

    /** A HikariCP pool of {@code size} connections (at most 2 kept idle), opened through {@code DriverManager}. */
    static HikariDataSource newPool(String jdbcUrl, String name, int size) {
        return newPool(jdbcUrl, name, size, null);
    }

    /** The same, running {@code initSql} (if not null) on every new connection. */
    static HikariDataSource newPool(String jdbcUrl, String name, int size, String initSql) {
        HikariConfig config = new HikariConfig();
        config.setConnectionInitSql(initSql);
        config.setJdbcUrl(jdbcUrl);
        config.setPoolName(name);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(Math.min(2, size));
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }
}
