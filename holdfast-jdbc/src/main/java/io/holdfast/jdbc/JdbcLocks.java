package io.holdfast.jdbc;

import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.LockStore;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lock stores on an application's own {@link DataSource}, for {@link io.holdfast.Holdfast#builder(LockStore)}:
 *
 * <pre>{@code
 * Holdfast holdfast = Holdfast.of(JdbcLocks.store(dataSource));
 * }</pre>
 *
 * <p>The database (PostgreSQL, MariaDB/MySQL or SQLite) is read from the connection's metadata. Every store call
 * borrows a connection from the {@code DataSource} and gives it back, with auto-commit and (MySQL/MariaDB) the
 * session time zone as they were. On PostgreSQL, while the store is open and waits have started, one connection of
 * the pool is kept for {@code LISTEN}; if the pool's connections do not unwrap to the PostgreSQL driver's own,
 * waits only poll. Lock-table mode only: the database's session locks ({@code mode=native}) need connections of
 * their own, so open those from a URI.
 *
 * <p>Who closes what: closing the {@code Holdfast} client closes the store, which gives back the listening
 * connection; the {@code DataSource} is never closed by Holdfast: close it after the client.
 */
public final class JdbcLocks {
    private static final Pattern ADDRESS = Pattern.compile("^jdbc:[a-z]+:(?://)?([^?;]*)");

    private JdbcLocks() {
    }

    /**
     * A store in table {@code holdfast_locks}, created if missing, on {@code dataSource}.
     *
     * @throws IllegalArgumentException if the database is none of PostgreSQL, MariaDB, MySQL or SQLite
     * @throws io.holdfast.StoreUnavailableException if no connection can be borrowed
     */
    public static LockStore store(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /** Settings for a store on {@code dataSource}. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** Settings for a store on an application's {@code DataSource}. Not thread-safe; build once. */
    public static final class Builder {
        private final DataSource dataSource;
        private String table = "holdfast_locks";
        private boolean createTable = true;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The lock table; {@code holdfast_locks} unless set. A letter or _ then up to 47 letters, digits or _. */
        public Builder table(String table) {
            this.table = Objects.requireNonNull(table, "table");
            return this;
        }

        /** Whether the table is created if missing (true unless set); false when the schema is migrated elsewhere. */
        public Builder createTable(boolean createTable) {
            this.createTable = createTable;
            return this;
        }

        /**
         * Reads the database from one borrowed connection and returns the store.
         *
         * @throws IllegalArgumentException if the table name is not allowed or the database is not supported
         * @throws io.holdfast.StoreUnavailableException if no connection can be borrowed
         * @throws io.holdfast.StoreConfigurationException if the database refuses the table
         */
        public LockStore build() {
            String kind;
            String address;
            boolean listen;
            try (Connection c = dataSource.getConnection()) {
                DatabaseMetaData md = c.getMetaData();
                kind = kind(md.getDatabaseProductName());
                address = address(md.getURL(), kind);
                listen = kind.equals(JdbcUri.POSTGRESQL) && pgDriver(c);
            } catch (SQLException e) {
                throw new StoreUnavailableException("jdbc", "DataSource " + dataSource.getClass().getName(),
                        "cannot borrow a connection: " + SqlErrors.rootMessage(e), e);
            }
            return new JdbcLockStore(JdbcUri.ofDataSource(kind, address, table, createTable), dataSource, listen);
        }
    }

    static String kind(String product) {
        String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (p.contains("postgresql")) {
            return JdbcUri.POSTGRESQL;
        }
        if (p.contains("mariadb")) {
            return JdbcUri.MARIADB;
        }
        if (p.contains("mysql")) {
            return JdbcUri.MYSQL;
        }
        if (p.contains("sqlite")) {
            return JdbcUri.SQLITE;
        }
        throw new IllegalArgumentException("the DataSource's database is " + product + "; Holdfast's JDBC backend supports PostgreSQL, "
                + "MariaDB, MySQL and SQLite");
    }

    /** Host, port and database (or the SQLite file) of the connection's URL, without its parameters. */
    private static String address(String url, String kind) {
        Matcher m = url == null ? null : ADDRESS.matcher(url);
        if (m == null || !m.find()) {
            return kind + " DataSource";
        }
        return m.group(1).replaceAll("^[^@/]*@", "");
    }

    private static boolean pgDriver(Connection c) {
        try {
            return c.isWrapperFor(org.postgresql.PGConnection.class);
        } catch (SQLException | LinkageError e) {
            return false;
        }
    }
}
