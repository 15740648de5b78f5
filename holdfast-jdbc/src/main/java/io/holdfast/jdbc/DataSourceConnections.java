package io.holdfast.jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Connections borrowed from an application's {@code DataSource} for one unit of work each and given back in the
 * state they were lent in: auto-commit is turned on for the work and restored afterwards, and on MySQL/MariaDB the
 * session runs in UTC for the work (as Holdfast's own pool does) and gets its time zone back. On SQLite, one unit of
 * work at a time in this process, as on Holdfast's own connection. Never closes the {@code DataSource}.
 */
final class DataSourceConnections implements ConnectionSource {
    private final DataSource dataSource;
    private final boolean mysql;
    private final ReentrantLock sqlite;

    DataSourceConnections(DataSource dataSource, String kind) {
        this.dataSource = dataSource;
        this.mysql = kind.equals(JdbcUri.MARIADB) || kind.equals(JdbcUri.MYSQL);
        this.sqlite = kind.equals(JdbcUri.SQLITE) ? new ReentrantLock() : null;
    }

    @Override
    public <T> T with(Work<T> work) throws SQLException {
        if (sqlite == null) {
            return borrowed(work);
        }
        sqlite.lock();
        try {
            return borrowed(work);
        } finally {
            sqlite.unlock();
        }
    }

    private <T> T borrowed(Work<T> work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            if (!autoCommit) {
                c.setAutoCommit(true);
            }
            String zone = mysql ? utc(c) : null;
            try {
                return work.run(c);
            } finally {
                if (zone != null) {
                    try (Statement st = c.createStatement()) {
                        st.execute("SET time_zone = '" + zone.replace("'", "''") + "'");
                    }
                }
                if (!autoCommit) {
                    c.setAutoCommit(false);
                }
            }
        }
    }

    /** Switches the session to UTC and returns the zone it had, to restore; null if it was UTC already. */
    private static String utc(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT @@session.time_zone")) {
            rs.next();
            String zone = rs.getString(1);
            if ("+00:00".equals(zone)) {
                return null;
            }
            st.execute("SET time_zone = '+00:00'");
            return zone;
        }
    }

    /** The application's {@code DataSource} stays open: the application owns it. */
    @Override
    public void close() {
    }
}
