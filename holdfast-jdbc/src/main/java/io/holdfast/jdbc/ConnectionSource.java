package io.holdfast.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** Lends connections for one unit of work; implementations decide pooling. */
interface ConnectionSource extends AutoCloseable {

    /** Work on a connection that is returned afterwards. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    <T> T with(Work<T> work) throws SQLException;

    @Override
    void close();
}
