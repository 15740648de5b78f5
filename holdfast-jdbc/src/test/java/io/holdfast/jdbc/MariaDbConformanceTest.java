package io.holdfast.jdbc;

/** The conformance suite on the MariaDB server at 127.0.0.1:3306 (database test, user root), lock-table mode. */
class MariaDbConformanceTest extends JdbcServerConformance {
    @Override
    String url(int port) {
        return "jdbc:mariadb://" + HOST + ":" + port + "/test?user=root";
    }

    @Override
    int port() {
        return 3306;
    }
}
