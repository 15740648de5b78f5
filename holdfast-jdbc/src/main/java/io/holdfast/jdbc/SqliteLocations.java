package io.holdfast.jdbc;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;

/**
 * Where a SQLite URI keeps its locks, for tools that only read (such as {@code holdfast status} and
 * {@code holdfast list}) and must not create a database file or its directories by looking.
 */
public final class SqliteLocations {
    private SqliteLocations() {
    }

    /**
     * The database file {@code uri} names, if it is a SQLite URI ({@code sqlite:...} or {@code jdbc:sqlite:...});
     * empty for any other URI.
     *
     * @throws IllegalArgumentException if it is a SQLite URI that is not valid, saying what is allowed
     */
    public static Optional<Path> databaseFile(String uri) {
        if (uri == null || !(uri.startsWith("sqlite:") || uri.startsWith("jdbc:sqlite:"))) {
            return Optional.empty();
        }
        return Optional.of(Paths.get(JdbcUri.parse(uri).address));
    }
}
