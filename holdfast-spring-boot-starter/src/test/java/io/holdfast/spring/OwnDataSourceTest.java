package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without holdfast.uri, the Holdfast bean is built on the application's DataSource (Spring Boot's, from
 * spring.datasource.*), on SQLite and on PostgreSQL: it excludes a URI-opened client on the same table, and the pool
 * still answers while the context runs. With holdfast.uri set, the URI wins.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OwnDataSourceTest {

    private static ApplicationContextRunner withDataSource(String url, String... more) {
        return Runners.starter().withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + url).withPropertyValues(more);
    }

    @Test
    void onTheApplicationsSqliteDataSource() {
        String uri = Runners.sqliteUri();
        withDataSource("jdbc:" + uri, "spring.datasource.driver-class-name=org.sqlite.JDBC")
                .run(context -> exercise(context.getBean(Holdfast.class), context.getBean(DataSource.class), uri, "sqlite"));
    }

    @Test
    void onTheApplicationsPostgresDataSource() {
        withDataSource(Runners.POSTGRES_URL, "spring.datasource.username=postgres")
                .run(context -> exercise(context.getBean(Holdfast.class), context.getBean(DataSource.class), Runners.POSTGRES_URI, "postgresql"));
    }

    @Test
    void holdfastUriWinsOverTheDataSource() {
        withDataSource(Runners.POSTGRES_URL, "spring.datasource.username=postgres", "holdfast.uri=" + Runners.sqliteUri())
                .run(context -> assertThat(context.getBean(Holdfast.class).describe()).startsWith("sqlite "));
    }

    private static void exercise(Holdfast holdfast, DataSource pool, String otherUri, String backend) throws Exception {
        assertThat(holdfast.describe()).startsWith(backend + " ");
        String name = "own-ds/" + UUID.randomUUID();
        try (Holdfast other = Holdfast.connect(otherUri)) {
            try (Hold hold = holdfast.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(other.lock(name).tryAcquire()).as("held on the application's pool").isEmpty();
            }
            Hold theirs = other.lock(name).acquire(Duration.ofSeconds(5));
            CompletableFuture<Hold> waiter = holdfast.lock(name).acquireAsync(Duration.ofSeconds(30));
            theirs.close();
            try (Hold mine = waiter.get(40, TimeUnit.SECONDS)) {
                assertThat(mine.fencingToken()).isGreaterThan(theirs.fencingToken());
            }
        }
        try (Connection c = pool.getConnection()) {
            assertThat(c.isValid(5)).as("the application's pool").isTrue();
        }
    }
}
