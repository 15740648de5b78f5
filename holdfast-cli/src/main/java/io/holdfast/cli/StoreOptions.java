package io.holdfast.cli;

import io.holdfast.Holdfast;
import picocli.CommandLine.Option;

/** The {@code --uri} option every command that talks to a store shares. */
final class StoreOptions {
    static final String ENV = "HOLDFAST_URI";
    static final String DEFAULT_URI = "sqlite:";

    @Option(names = "--uri", paramLabel = "URI",
            description = "Lock store: sqlite:[PATH], jdbc:sqlite:PATH, jdbc:postgresql://HOST:PORT/DB?user=U, "
                    + "jdbc:mariadb://..., jdbc:mysql://..., redis://HOST[:PORT] (also rediss://, redis-sentinel://, "
                    + "redis-cluster://, redlock://), zookeeper://HOST[:PORT], etcd://HOST[:PORT] (etcds:// for TLS), "
                    + "memcached://HOST[:PORT]. Unknown parameters are refused. Default: $" + ENV + ", else sqlite: "
                    + "(the file ~/.holdfast/locks.db).")
    String uri;

    /** The URI to use: the option, else {@code $HOLDFAST_URI}, else the embedded SQLite default. */
    String uri() {
        if (uri != null) {
            return uri;
        }
        String env = System.getenv(ENV);
        return env != null && !env.isBlank() ? env.trim() : DEFAULT_URI;
    }

    /** Connects; {@link io.holdfast.StoreUnavailableException} and bad URIs propagate to the exit-status mapping. */
    Holdfast connect() {
        return Holdfast.connect(uri());
    }

    /**
     * For commands that only read: the SQLite database file the URI names, if it does not exist (nothing was
     * ever locked there). Such a command reports that rather than open the store, which would create the file
     * and its directories.
     *
     * @throws IllegalArgumentException if the URI is a SQLite URI that is not valid
     */
    java.util.Optional<java.nio.file.Path> missingSqliteFile() {
        return io.holdfast.jdbc.SqliteLocations.databaseFile(uri()).filter(p -> !java.nio.file.Files.exists(p));
    }
}
