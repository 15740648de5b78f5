package io.holdfast.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

/**
 * One lock library set up against one PostgreSQL database, as the benchmark drives it. Each library
 * keeps its locks in its own table, so one run can measure all of them on the same server.
 */
interface Contender {

    /** Library and version, for the tables. */
    String name();

    /** How a waiting acquire works in this library (and what the harness adds), for the report. */
    String howItWaits();

    /** How holds are kept alive in this library (and what the harness adds), for the report. */
    String howItRenews();

    /** Creates the library's table if missing and empties it. */
    void prepareTable(Connection admin) throws SQLException;

    /** How many locks the table shows as held now, judged by the database's clock. */
    int countHeld(Connection admin, Duration lease) throws SQLException;

    /**
     * A new client: its own connection pool and library instance, as a separate process would have.
     * Every hold it takes lasts {@code lease}.
     */
    Client newClient(int index, Duration lease) throws Exception;

    /** One process's worth of a library. */
    interface Client extends AutoCloseable {

        /**
         * Takes the lock called {@code name}, waiting up to {@code wait}.
         *
         * @throws IllegalStateException if it was not acquired within {@code wait}
         */
        Held acquire(String name, Duration wait) throws Exception;

        /**
         * Takes every one of {@code names} (they are free) and keeps them held with the library's renewal
         * mechanism until the returned holding is closed, which releases them.
         */
        Holding holdAll(List<String> names) throws Exception;

        /** Closes the client's pool and library instance. */
        @Override
        void close();
    }

    /** One acquired lock. */
    interface Held {
        void release() throws Exception;
    }

    /** Many locks kept alive together. */
    interface Holding extends AutoCloseable {

        /** Renewals the library reported as failed so far (0 for a library that renews internally). */
        int renewalFailures();

        /** Stops renewing and releases every lock. */
        @Override
        void close();
    }

    /** Versions of the benchmarked libraries, filled in by the build. */
    static String version(String library) {
        try (InputStream in = Contender.class.getResourceAsStream("versions.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty(library, "?");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Appends a query parameter to a JDBC URL. */
    static String withParameter(String url, String parameter) {
        return url + (url.contains("?") ? "&" : "?") + parameter;
    }
}
