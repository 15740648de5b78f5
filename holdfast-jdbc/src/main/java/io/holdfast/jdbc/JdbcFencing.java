package io.holdfast.jdbc;

import io.holdfast.Hold;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The resource side of fencing for a SQL row: an {@code UPDATE} that applies only if the row has seen no fencing
 * token greater than the writer's, and records the writer's token in the same statement. A holder that was paused
 * past its lease (a GC pause, a stopped VM) and writes after a newer holder has written is refused by the database
 * itself, however late its write arrives; {@link Hold#checkValid()} alone cannot promise that.
 *
 * <pre>{@code
 * // stock(item PRIMARY KEY, qty INT, fence BIGINT NOT NULL DEFAULT 0)
 * static final JdbcFencing STOCK = JdbcFencing.of("stock", "fence", "item");
 * ...
 * try (Hold hold = holdfast.lock("stock/" + item).acquire(Duration.ofSeconds(5))) {
 *     int qty = readQty(connection, item);
 *     boolean applied = STOCK.update(connection, hold, Map.of("qty", qty - 1), item);
 * }
 * }</pre>
 *
 * <p>The statement is {@code UPDATE table SET c1 = ?, ..., fence = ? WHERE k1 = ? AND ... AND fence <= ?}: a write
 * with the token the row already has (the same hold writing again, a re-entered hold, a retried transaction whose
 * commit reply was lost) applies, as a fencing check should (refuse only tokens lower than the highest seen).
 * {@link #oncePerToken()} gives {@code fence < ?} instead, so that each token writes the row at most once.
 * An update with no values only raises the fence: a claim, made before reading the row, after which only this
 * token's writes (and newer ones) apply, so that no stale write can land between this holder's read and its write.
 *
 * <p>Runs on the caller's connection, in the caller's transaction: it neither commits nor changes auto-commit.
 * Values and key values are bound as parameters ({@link PreparedStatement#setObject}); table and column names
 * are checked against a strict pattern when the object is made, never quoted, so no name can carry SQL.
 * Works on PostgreSQL, MySQL/MariaDB and SQLite. Immutable and thread-safe.
 *
 * <p>Keep the fence column {@code NOT NULL} (start it at 0): a {@code NULL} fence refuses every write. Fence a row
 * with the tokens of one lock name only: tokens of different names are not ordered with each other. With MySQL's
 * {@code useAffectedRows=true}, a write that changes nothing (the same values with the same token) counts as not
 * applied; the drivers' default counts matched rows.
 */
public final class JdbcFencing {
    private static final String NAME = "[A-Za-z_][A-Za-z0-9_]{0,62}";
    private static final Pattern COLUMN = Pattern.compile(NAME);
    private static final Pattern TABLE = Pattern.compile(NAME + "(\\." + NAME + ")?");
    private static final String ALLOWED = "allowed: an unquoted SQL name, a letter or _ then up to 62 letters, digits or _";

    private final String table;
    private final String fenceColumn;
    private final List<String> keyColumns;
    private final boolean oncePerToken;

    private JdbcFencing(String table, String fenceColumn, List<String> keyColumns, boolean oncePerToken) {
        this.table = table;
        this.fenceColumn = fenceColumn;
        this.keyColumns = keyColumns;
        this.oncePerToken = oncePerToken;
    }

    /**
     * Fenced updates of the rows of {@code table} found by {@code keyColumns} (one or more: the primary key, or any
     * columns that identify one row), whose fencing token is kept in {@code fenceColumn} (a {@code BIGINT NOT NULL}).
     *
     * @param table a letter or {@code _} then up to 62 letters, digits or {@code _}, optionally after a schema
     *              name of the same form and a dot ({@code app.stock}); unquoted, so the database's case rules apply
     * @throws IllegalArgumentException if a name is not allowed, no key column is given, or a column is named twice
     */
    public static JdbcFencing of(String table, String fenceColumn, String... keyColumns) {
        Objects.requireNonNull(table, "table");
        if (!TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("table '" + table + "' is not allowed; " + ALLOWED
                    + ", optionally schema-qualified (schema.table)");
        }
        column("fence column", fenceColumn);
        if (keyColumns == null || keyColumns.length == 0) {
            throw new IllegalArgumentException("at least one key column is needed, to find the row to update");
        }
        List<String> keys = new ArrayList<>();
        for (String key : keyColumns) {
            column("key column", key);
            if (key.equalsIgnoreCase(fenceColumn) || keys.stream().anyMatch(key::equalsIgnoreCase)) {
                throw new IllegalArgumentException("column '" + key + "' is named twice (fence column " + fenceColumn
                        + ", key columns " + String.join(", ", keyColumns) + ")");
            }
            keys.add(key);
        }
        return new JdbcFencing(table, fenceColumn, List.copyOf(keys), false);
    }

    /**
     * The same updates, applied only if the row's fence is strictly lower than the token: each token writes a row
     * at most once, so a second write with the same token (a re-entered hold, a retried transaction) is refused.
     * For writes that must not be repeated, such as one sale per acquisition.
     */
    public JdbcFencing oncePerToken() {
        return new JdbcFencing(table, fenceColumn, keyColumns, true);
    }

    /**
     * Updates the row with {@code values} (column to value) and sets its fence to {@code hold}'s fencing token, if
     * the row's fence is not greater than that token (not equal either, after {@link #oncePerToken()}).
     *
     * @param key the key columns' values, in the order the columns were given
     * @return true if the row was updated; false if its fence refused the token or no row has that key
     * @throws IllegalArgumentException if a value column's name is not allowed or is the fence column, or the key
     *         does not match the key columns
     * @throws SQLException as the driver throws it
     */
    public boolean update(Connection connection, Hold hold, Map<String, ?> values, Object... key) throws SQLException {
        return update(connection, Objects.requireNonNull(hold, "hold").fencingToken(), values, key);
    }

    /**
     * {@link #update(Connection, Hold, Map, Object...)} with the token itself, for code that carries the token
     * rather than the hold (a request to another service, a queued job).
     *
     * @param token a fencing token (positive)
     */
    public boolean update(Connection connection, long token, Map<String, ?> values, Object... key) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(values, "values");
        if (token <= 0) {
            throw new IllegalArgumentException("token " + token + " is not a fencing token; allowed: 1 and above");
        }
        if (key == null || key.length != keyColumns.size()) {
            throw new IllegalArgumentException("the key has " + (key == null ? 0 : key.length) + " values, for "
                    + keyColumns.size() + " key columns (" + String.join(", ", keyColumns) + ")");
        }
        List<Map.Entry<String, ?>> sets = new ArrayList<>(values.entrySet());
        StringBuilder sql = new StringBuilder("UPDATE ").append(table).append(" SET ");
        for (Map.Entry<String, ?> set : sets) {
            String column = set.getKey();
            column("value column", column);
            if (column.equalsIgnoreCase(fenceColumn)) {
                throw new IllegalArgumentException("value column '" + column + "' is the fence column; the update sets it to the token");
            }
            sql.append(column).append(" = ?, ");
        }
        sql.append(fenceColumn).append(" = ? WHERE ");
        for (int i = 0; i < keyColumns.size(); i++) {
            if (key[i] == null) {
                throw new IllegalArgumentException("key column " + keyColumns.get(i) + " is null; a row is found by equal, non-null keys");
            }
            sql.append(keyColumns.get(i)).append(" = ? AND ");
        }
        sql.append(fenceColumn).append(oncePerToken ? " < ?" : " <= ?");
        try (PreparedStatement ps = connection.prepareStatement(sql.toString())) {
            int p = 1;
            for (Map.Entry<String, ?> set : sets) {
                ps.setObject(p++, set.getValue());
            }
            ps.setLong(p++, token);
            for (Object k : key) {
                ps.setObject(p++, k);
            }
            ps.setLong(p, token);
            return ps.executeUpdate() > 0;
        }
    }

    private static void column(String what, String name) {
        Objects.requireNonNull(name, what);
        if (!COLUMN.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " '" + name + "' is not allowed; " + ALLOWED);
        }
    }

    @Override
    public String toString() {
        return "JdbcFencing[" + table + "." + fenceColumn + (oncePerToken ? " < token" : " <= token") + " by "
                + String.join(", ", keyColumns) + "]";
    }
}
