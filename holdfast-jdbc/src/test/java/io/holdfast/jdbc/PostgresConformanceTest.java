package io.holdfast.jdbc;

/** The conformance suite on the PostgreSQL server at 127.0.0.1:5432 (database test, user postgres), lock-table mode. */
class PostgresConformanceTest extends JdbcServerConformance {
    @Override
    String url(int port) {
        return "jdbc:postgresql://" + HOST + ":" + port + "/test?user=postgres";
    }

    @Override
    int port() {
        return 5432;
    }
}
