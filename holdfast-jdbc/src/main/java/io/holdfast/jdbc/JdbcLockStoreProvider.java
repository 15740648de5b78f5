package io.holdfast.jdbc;

import io.holdfast.spi.LockStore;
import io.holdfast.spi.LockStoreProvider;

import java.util.List;

/**
 * The JDBC backend: {@code sqlite:[PATH]}, {@code jdbc:sqlite:PATH}, {@code jdbc:postgresql://...},
 * {@code jdbc:mariadb://...} and {@code jdbc:mysql://...}, with Holdfast's parameters {@code table},
 * {@code poolSize}, {@code connectTimeout}, {@code busyTimeout} (SQLite), {@code createTable} and
 * {@code mode} ({@code table}, the default, {@code native} for the database's session locks, or {@code row} for
 * {@code SELECT ... FOR UPDATE NOWAIT} row locks held by open transactions).
 */
public final class JdbcLockStoreProvider implements LockStoreProvider {

    @Override
    public List<String> schemes() {
        return List.of("sqlite:", "jdbc:sqlite:", "jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:");
    }

    @Override
    public boolean accepts(String uri) {
        return JdbcUri.accepts(uri);
    }

    @Override
    public LockStore open(String uri) {
        JdbcUri parsed = JdbcUri.parse(uri);
        JdbcLockStore table = new JdbcLockStore(parsed);
        return parsed.pinsConnections() ? new NativeLockStore(table) : table;
    }
}
