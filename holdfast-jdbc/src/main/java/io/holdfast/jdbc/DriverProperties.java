package io.holdfast.jdbc;

import io.holdfast.Uris;

import java.sql.Driver;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;

/**
 * Checks the parameters a JDBC URL passes through to its driver against the names the driver reports
 * ({@link Driver#getPropertyInfo}), in the case the driver reads them: exactly for PostgreSQL, in any case
 * for MariaDB and MySQL. A near-miss of one of Holdfast's own parameters ({@code tabel}, {@code mdoe},
 * {@code poolsize}) is refused even where the driver would ignore it, because a client with the typo would
 * silently use another table or mode than its peers. When the driver is not on the class path nothing is
 * checked here (opening the store then says which driver to add).
 */
final class DriverProperties {
    /** Older MariaDB options the driver still reads although {@code getPropertyInfo} does not list them. */
    private static final List<String> MARIADB_LEGACY = List.of("useSsl", "trustServerCertificate", "verifyServerCertificate",
            "disableSslHostnameVerification");

    private DriverProperties() {
    }

    static void check(String kind, String url, Collection<String> keys, List<String> own, Function<String, IllegalArgumentException> bad) {
        if (keys.isEmpty()) {
            return;
        }
        List<String> names = names(kind, url);
        boolean anyCase = !kind.equals(JdbcUri.POSTGRESQL);
        for (String key : keys) {
            String near = Uris.nearMiss(key, own);
            if (near != null) {
                throw bad.apply("parameter '" + key + "' is unknown (did you mean " + near + "?); Holdfast's own parameters are "
                        + String.join(", ", own) + ", each spelt exactly so");
            }
            if (names != null && !known(key, names, anyCase)) {
                throw bad.apply(JdbcUri.unknown(key, own, names, kind));
            }
        }
    }

    private static boolean known(String key, List<String> names, boolean anyCase) {
        for (String name : names) {
            if (anyCase ? name.equalsIgnoreCase(key) : name.equals(key)) {
                return true;
            }
        }
        return false;
    }

    /** The driver's property names, or null if its driver is not on the class path or cannot say. */
    private static List<String> names(String kind, String url) {
        String className = switch (kind) {
            case JdbcUri.POSTGRESQL -> "org.postgresql.Driver";
            case JdbcUri.MARIADB -> "org.mariadb.jdbc.Driver";
            default -> "com.mysql.cj.jdbc.Driver";
        };
        try {
            Driver driver = (Driver) Class.forName(className, true, DriverProperties.class.getClassLoader())
                    .getDeclaredConstructor().newInstance();
            List<String> names = new ArrayList<>();
            for (DriverPropertyInfo info : driver.getPropertyInfo(url, new Properties())) {
                names.add(info.name);
            }
            if (kind.equals(JdbcUri.MARIADB)) {
                names.addAll(MARIADB_LEGACY);
            }
            return names.isEmpty() ? null : names;
        } catch (ReflectiveOperationException | LinkageError | SQLException | RuntimeException e) {
            return null;
        }
    }

}
