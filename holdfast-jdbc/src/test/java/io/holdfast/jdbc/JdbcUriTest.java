package io.holdfast.jdbc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Trial B2, B4 and review 19: a JDBC URI Holdfast cannot read exactly is refused, saying what is allowed. */
class JdbcUriTest {
    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

    @ParameterizedTest
    @ValueSource(strings = {PG + "&tabel=x", PG + "&mdoe=native", PG + "&poolsize=4", PG + "&Table=x", PG + "&createtable=false",
            PG + "&ConnectTimeout=1s", MARIADB + "&tabel=x", MARIADB + "&poolsize=4", MARIADB + "&MODE=native"})
    void nearMissesOfHoldfastsParametersAreRefused(String uri) {
        assertThatThrownBy(() -> JdbcUri.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("JDBC URI '")
                .hasMessageContaining("is unknown (did you mean ")
                .hasMessageContaining("table, poolSize, connectTimeout, createTable, mode");
    }

    @ParameterizedTest
    @ValueSource(strings = {PG + "&foo=bar", PG + "&sslMode=require", PG + "&applicationName=x", MARIADB + "&foo=bar",
            MARIADB + "&useSSSL=true"})
    void parametersTheDriverDoesNotKnowAreRefusedWithItsList(String uri) {
        assertThatThrownBy(() -> JdbcUri.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is unknown")
                .hasMessageContaining("allowed: table, poolSize, connectTimeout, createTable, mode, and the ")
                .hasMessageContaining(" driver's own: ")
                .hasMessageContaining("socketTimeout");
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite:/tmp/x.db?busyTimout=1s", "sqlite:/tmp/x.db?foo=bar", "jdbc:sqlite:/tmp/x.db?journal_mode=WAL",
            "sqlite:/tmp/x.db?Table=t"})
    void sqliteRefusesEveryParameterButItsOwn(String uri) {
        assertThatThrownBy(() -> JdbcUri.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is unknown")
                .hasMessageContaining("allowed: table, busyTimeout, createTable, mode");
    }

    @Test
    void parametersForTheOtherKindOfDatabaseAreRefused() {
        assertThatThrownBy(() -> JdbcUri.parse("sqlite:/tmp/x.db?poolSize=4")).hasMessageContaining("'poolSize' is not used by SQLite");
        assertThatThrownBy(() -> JdbcUri.parse(PG + "&busyTimeout=1s")).hasMessageContaining("'busyTimeout' is not used by a server database");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:postgresql://127.0.0.1:99999/test?user=postgres", "jdbc:postgresql://127.0.0.1:abc/test",
            "jdbc:postgresql://a:5432,b:70000/test", "jdbc:mariadb://127.0.0.1:0/test", "jdbc:mysql://h:65536/db"})
    void aPortOutOfRangeIsAUsageError(String uri) {
        assertThatThrownBy(() -> JdbcUri.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a number from 1 to 65535")
                .hasMessageContaining("expected jdbc:");
    }

    /** A new user's trial: an inline comment copied into a .properties value made SQLite open a file named after it. */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite:/tmp/locks.db      # or sqlite:, redis://cache:6379", "sqlite:/tmp/locks.db ", " sqlite:/tmp/locks.db",
            "sqlite:/tmp/my locks.db", PG + " # the primary", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres\t"})
    void whitespaceIsRefusedNotTakenIntoAFileNameOrParameter(String uri) {
        assertThatThrownBy(() -> JdbcUri.parse(uri)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has whitespace at position").hasMessageContaining("inline comment");
    }

    @Test
    void aMissingHostIsAUsageError() {
        assertThatThrownBy(() -> JdbcUri.parse("jdbc:postgresql://:5432/test")).hasMessageContaining("no host is given");
        assertThatThrownBy(() -> JdbcUri.parse("jdbc:postgresql:///test")).hasMessageContaining("no host is given");
    }

    @Test
    void whatIsAllowedStillParses() {
        JdbcUri pg = JdbcUri.parse(PG + "&sslmode=disable&ApplicationName=x&socketTimeout=20&table=t1&poolSize=3&connectTimeout=2s");
        assertThat(pg.table).isEqualTo("t1");
        assertThat(pg.poolSize).isEqualTo(3);
        assertThat(pg.jdbcUrl).isEqualTo("jdbc:postgresql://127.0.0.1:5432/test?user=postgres&sslmode=disable&ApplicationName=x&socketTimeout=20");
        JdbcUri maria = JdbcUri.parse(MARIADB + "&sslMode=disable&SocketTimeout=1000&useSsl=false&mode=native");
        assertThat(maria.mode).isEqualTo(JdbcUri.Mode.NATIVE);
        assertThat(JdbcUri.parse("jdbc:postgresql://a:5432,[::1]:5433/test").address).isEqualTo("a:5432,[::1]:5433/test");
        JdbcUri sqlite = JdbcUri.parse("sqlite:/tmp/x.db?table=t2&busyTimeout=0&createTable=false");
        assertThat(sqlite.busyTimeout).isZero();
        assertThat(sqlite.jdbcUrl).isEqualTo("jdbc:sqlite:/tmp/x.db");
    }
}
