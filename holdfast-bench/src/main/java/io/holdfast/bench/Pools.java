package io.holdfast.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.time.Duration;

/** Connection pools for the incumbents, sized like Holdfast's own. */
public final class Pools {
    private Pools() {
    }

    /** A HikariCP pool of {@link HoldfastContender#POOL_SIZE} connections, opened through {@code DriverManager}. */
    public static HikariDataSource newPool(String jdbcUrl, String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setPoolName(name);
        config.setMaximumPoolSize(HoldfastContender.POOL_SIZE);
        config.setMinimumIdle(Math.min(2, HoldfastContender.POOL_SIZE));
        config.setConnectionTimeout(5_000);
        return new HikariDataSource(config);
    }

    /** {@code 10ms}, {@code 3s}, {@code 1.5s}. */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + " ms";
        }
        return (ms % 1000 == 0 ? Long.toString(ms / 1000) : String.format(java.util.Locale.ROOT, "%.1f", ms / 1000.0)) + " s";
    }
}
