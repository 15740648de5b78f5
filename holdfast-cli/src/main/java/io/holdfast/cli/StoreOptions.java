package io.holdfast.cli;

import io.holdfast.Holdfast;
import picocli.CommandLine.Option;

/** The {@code --uri} option every command that talks to a store shares. */
final class StoreOptions {
    static final String ENV = "HOLDFAST_URI";
    static final String DEFAULT_URI = "sqlite:";

    @Option(names = "--uri", paramLabel = "URI",
            description = "Lock store: sqlite:[PATH], jdbc:sqlite:PATH, jdbc:postgresql://HOST:PORT/DB?user=U, "
                    + "jdbc:mariadb://..., jdbc:mysql://... Default: $" + ENV + ", else sqlite: "
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
}
