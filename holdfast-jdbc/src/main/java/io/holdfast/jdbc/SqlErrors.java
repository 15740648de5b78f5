package io.holdfast.jdbc;

import io.holdfast.HoldfastException;
import io.holdfast.StoreConfigurationException;
import io.holdfast.StoreUnavailableException;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

/**
 * Turns SQL errors into Holdfast's: a configuration the database refuses (no such database or role, wrong
 * password, no privilege) becomes {@link StoreConfigurationException}; unreachable or unanswering databases
 * become {@link StoreUnavailableException}.
 */
final class SqlErrors {
    private static final int SQLITE_BUSY = 5;
    private static final int SQLITE_LOCKED = 6;
    private static final int SQLITE_IOERR = 10;
    private static final int SQLITE_CANTOPEN = 14;

    /** PostgreSQL: invalid_catalog_name, invalid_authorization_specification, invalid_password, insufficient_privilege, invalid_schema_name. */
    private static final Set<String> CONFIG_STATES = Set.of("3D000", "28000", "28P01", "42501", "3F000");
    /** MariaDB and MySQL: database access denied, access denied, unknown database, command denied, access denied (no such user). */
    private static final Set<Integer> CONFIG_CODES = Set.of(1044, 1045, 1049, 1142, 1698);

    private final JdbcUri uri;

    SqlErrors(JdbcUri uri) {
        this.uri = uri;
    }

    HoldfastException failure(String what, SQLException e) {
        if (configuration(e)) {
            return new StoreConfigurationException(uri.backendName(), uri.address, what + ": " + rootMessage(e), e);
        }
        if (unavailable(e)) {
            return new StoreUnavailableException(uri.backendName(), uri.address, what + ": " + rootMessage(e), e);
        }
        return new HoldfastException(uri.backendName() + " store at " + uri.address + ": " + what + ": " + e.getMessage(), e);
    }

    /**
     * Whether the database refused the client's configuration rather than failed to answer: a database, role
     * or schema that does not exist, a wrong password, a missing privilege. Retrying cannot help.
     */
    boolean configuration(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                String state = s.getSQLState();
                if (uri.kind.equals(JdbcUri.POSTGRESQL) && state != null && CONFIG_STATES.contains(state)) {
                    return true;
                }
                if ((uri.kind.equals(JdbcUri.MARIADB) || uri.kind.equals(JdbcUri.MYSQL)) && CONFIG_CODES.contains(s.getErrorCode())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether the error means the database could not be reached or did not answer, rather than refused a statement. */
    boolean unavailable(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
                    || t instanceof SQLRecoverableException || t instanceof SQLTimeoutException || t instanceof java.io.IOException) {
                return true;
            }
            if (t instanceof SQLException s) {
                String state = s.getSQLState();
                if (state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P03"))) {
                    return true;
                }
                if (uri.kind.equals(JdbcUri.SQLITE)) {
                    int code = s.getErrorCode() & 0xff;
                    if (code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_IOERR || code == SQLITE_CANTOPEN) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage();
        return m == null ? root.getClass().getSimpleName() : m;
    }

    /** A missing driver is a set-up error: say which artifact to add, rather than blame the database. */
    static void requireDriver(String kind) {
        String[] driver = switch (kind) {
            case JdbcUri.SQLITE -> new String[] {"org.sqlite.JDBC", "org.xerial:sqlite-jdbc"};
            case JdbcUri.POSTGRESQL -> new String[] {"org.postgresql.Driver", "org.postgresql:postgresql"};
            case JdbcUri.MARIADB -> new String[] {"org.mariadb.jdbc.Driver", "org.mariadb.jdbc:mariadb-java-client"};
            default -> new String[] {"com.mysql.cj.jdbc.Driver", "com.mysql:mysql-connector-j (or use jdbc:mariadb: with the MariaDB driver)"};
        };
        try {
            Class.forName(driver[0], true, SqlErrors.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the " + kind + " JDBC driver " + driver[0] + " is not on the class path; add " + driver[1], e);
        }
    }
}
