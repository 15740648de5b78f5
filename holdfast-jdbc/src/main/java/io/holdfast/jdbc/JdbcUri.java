package io.holdfast.jdbc;

import io.holdfast.Durations;
import io.holdfast.Uris;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed Holdfast JDBC URI: which database, the JDBC URL the driver gets, and Holdfast's own query
 * parameters (removed from the driver's URL).
 */
final class JdbcUri {
    static final String SQLITE = "sqlite";
    static final String POSTGRESQL = "postgresql";
    static final String MARIADB = "mariadb";
    static final String MYSQL = "mysql";

    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,47}");
    private static final Pattern SERVER_ADDRESS = Pattern.compile("^jdbc:[a-z]+://([^/?;]*)(/[^?;]*)?");
    /** Holdfast's own parameters on server databases, spelt exactly so; removed from the driver's URL. */
    static final List<String> SERVER_OWN = List.of("table", "poolSize", "connectTimeout", "createTable", "mode");
    /** Holdfast's own parameters on SQLite; the SQLite URL takes no others. */
    static final List<String> SQLITE_OWN = List.of("table", "busyTimeout", "createTable", "mode");
    private static final List<String> ALL_OWN = List.of("table", "poolSize", "connectTimeout", "busyTimeout", "createTable", "mode");

    final String kind;
    final String jdbcUrl;
    final String address;
    final String table;
    final int poolSize;
    final Duration connectTimeout;
    final Duration busyTimeout;
    final boolean createTable;
    /** How holds are kept: lease rows of the lock table, or a lock of the database's own on a pinned connection. */
    enum Mode {
        /** Lease rows of the lock table ({@code mode=table}, the default). */
        TABLE,
        /** PostgreSQL advisory locks, MySQL/MariaDB {@code GET_LOCK} ({@code mode=native}). */
        NATIVE,
        /** {@code SELECT ... FOR UPDATE NOWAIT} on a row, held by an open transaction ({@code mode=row}). */
        ROW;

        String parameter() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    final Mode mode;

    private JdbcUri(String kind, String jdbcUrl, String address, Map<String, String> own) {
        this.kind = kind;
        this.jdbcUrl = jdbcUrl;
        this.address = address;
        this.table = own.getOrDefault("table", "holdfast_locks");
        if (!TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("table '" + table + "' is not allowed; allowed: a letter or _ then up to 47 letters, digits or _");
        }
        this.mode = mode(own.getOrDefault("mode", "table"), kind);
        // A native or row hold pins one connection for as long as it lasts; a read-write lock's write takes 17 at its peak.
        this.poolSize = parseInt(own.getOrDefault("poolSize", pinsConnections() ? "24" : "4"), "poolSize", pinsConnections() ? 2 : 1, 256);
        this.connectTimeout = parseDuration(own.getOrDefault("connectTimeout", "5s"), "connectTimeout", Duration.ofMillis(250), Duration.ofMinutes(5));
        this.busyTimeout = parseDuration(own.getOrDefault("busyTimeout", "2s"), "busyTimeout", Duration.ZERO, Duration.ofMinutes(5));
        String ct = own.getOrDefault("createTable", "true");
        if (!ct.equals("true") && !ct.equals("false")) {
            throw new IllegalArgumentException("createTable '" + ct + "' is not allowed; allowed: true or false");
        }
        this.createTable = Boolean.parseBoolean(ct);
    }

    private static Mode mode(String value, String kind) {
        Mode mode = switch (value) {
            case "table" -> Mode.TABLE;
            case "native" -> Mode.NATIVE;
            case "row" -> Mode.ROW;
            default -> throw new IllegalArgumentException("mode '" + value + "' is not allowed; allowed: table (the lock table, default), native "
                    + "(PostgreSQL advisory locks, MySQL/MariaDB GET_LOCK) or row (SELECT ... FOR UPDATE NOWAIT in an open transaction)");
        };
        if (mode == Mode.NATIVE && kind.equals(SQLITE)) {
            throw new IllegalArgumentException("mode native is for PostgreSQL (advisory locks) and MySQL/MariaDB (GET_LOCK); SQLite has no "
                    + "session locks: use its default lock table");
        }
        if (mode == Mode.ROW && kind.equals(SQLITE)) {
            throw new IllegalArgumentException("mode row is for PostgreSQL and MySQL 8/MariaDB 10.3 or later (SELECT ... FOR UPDATE NOWAIT); "
                    + "SQLite has no row locks (an open write transaction locks the whole file, and every other lock with it): use its "
                    + "default lock table");
        }
        return mode;
    }

    /** Whether each hold pins a pooled connection (mode native or row). */
    boolean pinsConnections() {
        return mode != Mode.TABLE;
    }

    /** The settings of a store on an application's {@code DataSource}: no URL of its own, no pool settings. */
    static JdbcUri ofDataSource(String kind, String address, String table, boolean createTable) {
        Map<String, String> own = new LinkedHashMap<>();
        own.put("table", table);
        own.put("createTable", Boolean.toString(createTable));
        return new JdbcUri(kind, null, address, own);
    }

    static boolean accepts(String uri) {
        return uri.startsWith("sqlite:") || uri.startsWith("jdbc:sqlite:") || uri.startsWith("jdbc:postgresql:")
                || uri.startsWith("jdbc:mariadb:") || uri.startsWith("jdbc:mysql:");
    }

    /**
     * Parses {@code uri}.
     *
     * @throws IllegalArgumentException naming what is wrong and what is allowed: an unknown or misspelt parameter
     *         (Holdfast's own, or for a server database one its driver does not know), a missing host, a bad port
     */
    static JdbcUri parse(String uri) {
        for (int i = 0; i < uri.length(); i++) {
            if (Character.isWhitespace(uri.charAt(i))) {
                // A new user's trial: "holdfast.uri=sqlite:/data/locks.db   # or redis://..." in a .properties file, which has
                // no inline comments, opened a SQLite file named after the comment, beside the other processes' file.
                throw new IllegalArgumentException("URI '" + uri + "' has whitespace at position " + i + " (an inline comment in a "
                        + ".properties file? they have none: put a comment on its own line); a URI has no spaces: for a server "
                        + "database percent-encode one in a parameter (%20), for SQLite use a path without whitespace");
            }
        }
        int q = uri.indexOf('?');
        String base = q < 0 ? uri : uri.substring(0, q);
        boolean sqlite = base.startsWith("sqlite:") || base.startsWith("jdbc:sqlite:");
        String kind = sqlite ? SQLITE : base.startsWith("jdbc:postgresql:") ? POSTGRESQL : base.startsWith("jdbc:mariadb:") ? MARIADB : MYSQL;
        Map<String, String> own = new LinkedHashMap<>();
        Map<String, String> driver = new LinkedHashMap<>();
        StringBuilder rest = new StringBuilder();
        if (q >= 0) {
            for (String pair : uri.substring(q + 1).split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : pair.substring(eq + 1);
                if (ALL_OWN.contains(key)) {
                    if (!(sqlite ? SQLITE_OWN : SERVER_OWN).contains(key)) {
                        throw bad(uri, kind, "parameter '" + key + "' is not used by " + (sqlite ? "SQLite (one connection, no server)"
                                : "a server database (busyTimeout is SQLite's)"));
                    }
                    if (own.put(key, value) != null) {
                        throw bad(uri, kind, "parameter '" + key + "' is given twice");
                    }
                } else {
                    driver.put(key, value);
                    rest.append(rest.length() == 0 ? "?" : "&").append(pair);
                }
            }
        }
        if (sqlite) {
            if (!driver.isEmpty()) {
                String key = driver.keySet().iterator().next();
                throw bad(uri, kind, unknown(key, SQLITE_OWN, List.of(), null));
            }
            String path = base.substring(base.indexOf("sqlite:") + "sqlite:".length());
            if (path.startsWith("//")) {
                path = path.substring(2); // sqlite:///abs/path
            }
            if (path.isEmpty()) {
                path = Paths.get(System.getProperty("user.home"), ".holdfast", "locks.db").toString();
            } else if (path.equals(":memory:") || path.startsWith("file::memory:")) {
                throw new IllegalArgumentException("an in-memory SQLite database cannot be shared between processes, so it cannot hold distributed locks; "
                        + "give a file: sqlite:/path/to/locks.db (or plain sqlite: for ~/.holdfast/locks.db)");
            } else if (path.startsWith("~/")) {
                path = Paths.get(System.getProperty("user.home"), path.substring(2)).toString();
            }
            Path abs = Paths.get(path).toAbsolutePath().normalize();
            return new JdbcUri(SQLITE, "jdbc:sqlite:" + abs, abs.toString(), own);
        }
        Matcher m = SERVER_ADDRESS.matcher(base);
        if (!m.find() || m.group(1).isEmpty()) {
            throw bad(uri, kind, "no host is given");
        }
        String hostPort = m.group(1).replaceAll("^[^@]*@", "");
        ServerHosts.check(hostPort, problem -> bad(uri, kind, problem));
        DriverProperties.check(kind, base, driver.keySet(), SERVER_OWN, problem -> bad(uri, kind, problem));
        String address = hostPort + (m.group(2) == null ? "" : m.group(2));
        return new JdbcUri(kind, base + rest, address, own);
    }

    /** The message for a parameter nobody knows, naming what it resembles and what is allowed. */
    static String unknown(String key, List<String> own, List<String> driverNames, String driverName) {
        String near = io.holdfast.Uris.nearMiss(key, own);
        if (near == null && !driverNames.isEmpty()) {
            near = io.holdfast.Uris.nearMiss(key, driverNames);
        }
        return "parameter '" + key + "' is unknown" + (near == null ? "" : " (did you mean " + near + "?)") + "; allowed: "
                + String.join(", ", own) + (driverName == null ? "" : ", and the " + driverName + " driver's own: " + String.join(", ", driverNames));
    }

    static IllegalArgumentException bad(String uri, String kind, String problem) {
        String form = kind.equals(SQLITE) ? "sqlite:[PATH][?table=NAME&busyTimeout=2s&createTable=true]"
                : "jdbc:" + kind + "://host[:port][,host[:port]...]/database[?user=...&table=NAME&poolSize=N&connectTimeout=5s&createTable=true&mode=table|native|row]";
        return new IllegalArgumentException("JDBC URI '" + Uris.redact(uri) + "' is not valid: " + problem + "; expected " + form);
    }

    private static int parseInt(String value, String name, int min, int max) {
        try {
            int v = Integer.parseInt(value);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new IllegalArgumentException(name + " '" + value + "' is not allowed; allowed: a whole number from " + min + " to " + max);
    }

    private static Duration parseDuration(String value, String name, Duration min, Duration max) {
        Duration d = Durations.parse(value);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException(name + " " + value + " is out of range; allowed: " + Durations.format(min)
                    + " to " + Durations.format(max));
        }
        return d;
    }

    /** The backend's name in messages: the database, with {@code -native} for session locks and {@code -row} for row locks. */
    String backendName() {
        return kind.toLowerCase(Locale.ROOT) + (mode == Mode.TABLE ? "" : "-" + mode.parameter());
    }
}
