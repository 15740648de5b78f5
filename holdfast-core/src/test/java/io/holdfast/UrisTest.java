package io.holdfast;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class UrisTest {

    @Test
    void hidesPasswordsInUserInfoAndParameters() {
        assertThat(Uris.redact("redis://alice:s3cret@127.0.0.1:6379/0")).isEqualTo("redis://alice:***@127.0.0.1:6379/0");
        assertThat(Uris.redact("jdbc:postgresql://h:5432/db?user=u&password=pw&ssl=true"))
                .isEqualTo("jdbc:postgresql://h:5432/db?user=u&password=***&ssl=true");
        assertThat(Uris.redact("sqlite:/tmp/x.db")).isEqualTo("sqlite:/tmp/x.db");
    }
}
