package io.holdfast.jdbc;

import io.holdfast.spi.LockStore;
import io.holdfast.spi.LockStoreProvider;

import java.util.List;

/**
 * The JDBC backend: {@code sqlite:[PATH]}, {@code jdbc:sqlite:PATH}, {@code jdbc:postgresql://...},
 * {@code jdbc:mariadb://...} and {@code jdbc:mysql://...}, with Holdfast's parameters {@code table},
 * {@code poolSize}, {@code connectTimeout}, {@code busyTimeout} (SQLite) and {@code createTable}.
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
        return new JdbcLockStore(JdbcUri.parse(uri));
    }
}
