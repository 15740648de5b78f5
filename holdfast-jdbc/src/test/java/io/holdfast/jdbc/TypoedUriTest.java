package io.holdfast.jdbc;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Trial B2: a second client whose URI has a typo is refused; it never takes the lock the first one holds. */
@Timeout(60)
class TypoedUriTest {

    @Test
    void postgresTabel() throws Exception {
        String table = TestTables.fresh();
        String pg = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
        try {
            secondIsRefused(pg + "&table=" + table, pg + "&tabel=" + table, "'tabel' is unknown");
            secondIsRefused(pg + "&table=" + table, pg + "&table=" + table + "&mdoe=native", "'mdoe' is unknown");
        } finally {
            TestTables.drop(pg, table);
        }
    }

    @Test
    void mariaDbPoolsize() throws Exception {
        String table = TestTables.fresh();
        String maria = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
        try {
            secondIsRefused(maria + "&table=" + table, maria + "&Table=" + table, "'Table' is unknown");
        } finally {
            TestTables.drop(maria, table);
        }
    }

    @Test
    void sqliteBusyTimout(@TempDir Path dir) throws Exception {
        String uri = "sqlite:" + dir.resolve("x.db");
        secondIsRefused(uri, uri + "?busyTimout=1s", "'busyTimout' is unknown");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains("?"));
        }
    }

    private static void secondIsRefused(String good, String typo, String message) throws Exception {
        try (Holdfast first = Holdfast.connect(good);
             Hold hold = first.lock("typo/e2e").acquire(Duration.ofSeconds(5))) {
            assertThatThrownBy(() -> {
                try (Holdfast second = Holdfast.connect(typo)) {
                    second.lock("typo/e2e").tryAcquire(Duration.ZERO).ifPresent(h -> {
                        h.close();
                        throw new AssertionError("the second client took the lock the first one holds");
                    });
                }
            }).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
            assertThat(hold.isValid()).isTrue();
        }
    }
}
