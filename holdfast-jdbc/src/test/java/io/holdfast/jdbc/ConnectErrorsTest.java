package io.holdfast.jdbc;

import io.holdfast.Holdfast;
import io.holdfast.StoreConfigurationException;
import io.holdfast.StoreUnavailableException;
import io.holdfast.testkit.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Trial B5 and B6: a database or role that does not exist is a configuration error (not "unavailable",
 * which reads as transient); a refused connection and a SQLite file that cannot be opened are unavailable.
 */
@Timeout(60)
class ConnectErrorsTest {

    @Test
    void aMissingPostgresDatabaseOrRoleIsAConfigurationError() {
        assertThatThrownBy(() -> Holdfast.connect("jdbc:postgresql://127.0.0.1:5432/hf_nosuchdb?user=postgres"))
                .isInstanceOf(StoreConfigurationException.class)
                .hasMessageContaining("postgresql store at 127.0.0.1:5432/hf_nosuchdb refused the configuration")
                .hasMessageContaining("\"hf_nosuchdb\" does not exist");
        assertThatThrownBy(() -> Holdfast.connect("jdbc:postgresql://127.0.0.1:5432/test?user=hf_nosuchuser"))
                .isInstanceOf(StoreConfigurationException.class)
                .hasMessageContaining("\"hf_nosuchuser\" does not exist");
    }

    @Test
    void aMissingMariaDbDatabaseOrUserIsAConfigurationError() {
        assertThatThrownBy(() -> Holdfast.connect("jdbc:mariadb://127.0.0.1:3306/hf_nosuchdb?user=root"))
                .isInstanceOf(StoreConfigurationException.class)
                .hasMessageContaining("mariadb store at 127.0.0.1:3306/hf_nosuchdb refused the configuration")
                .hasMessageContaining("Unknown database");
        assertThatThrownBy(() -> Holdfast.connect("jdbc:mariadb://127.0.0.1:3306/test?user=hf_nosuchuser"))
                .isInstanceOf(StoreConfigurationException.class)
                .hasMessageContaining("Access denied");
    }

    @Test
    void aRefusedConnectionIsUnavailable() {
        int port = LoopbackPorts.unusedPort();
        assertThatThrownBy(() -> Holdfast.connect("jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres"))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + port);
        assertThatThrownBy(() -> Holdfast.connect("jdbc:mariadb://127.0.0.1:" + port + "/test?user=root"))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + port);
    }

    @Test
    void aSqliteFileThatCannotBeOpenedIsUnavailable(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> Holdfast.connect("sqlite:/proc/holdfast-locks.db"))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("sqlite store at /proc/holdfast-locks.db is unavailable: cannot open");
        Path file = Files.createFile(dir.resolve("not-a-dir"));
        assertThatThrownBy(() -> Holdfast.connect("sqlite:" + file + "/locks.db"))
                .isInstanceOf(StoreUnavailableException.class);
    }
}
