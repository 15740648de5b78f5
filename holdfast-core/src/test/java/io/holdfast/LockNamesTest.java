package io.holdfast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockNamesTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "orders/42", "job:nightly-backup", "A_b.c@d+e=f#g", "x/y/z"})
    void acceptsPortableNames(String name) {
        assertThat(LockNames.requireValid(name)).isEqualTo(name);
    }

    @Test
    void acceptsTheLongestName() {
        String name = "n".repeat(LockNames.MAX_LENGTH);
        assertThat(LockNames.requireValid(name)).hasSize(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a b", "/a", "a/", "a//b", "caf\u00e9", "tab\there", "semi;colon", "q?x"})
    void rejectsOthersSayingWhatIsAllowed(String name) {
        assertThatThrownBy(() -> LockNames.requireValid(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed: 1 to 200 characters");
    }

    @Test
    void rejectsNullAndTooLong() {
        assertThatThrownBy(() -> LockNames.requireValid(null)).hasMessageContaining("null");
        assertThatThrownBy(() -> LockNames.requireValid("n".repeat(201))).hasMessageContaining("201 characters long");
    }

    @Test
    void showsControlCharactersEscaped() {
        assertThatThrownBy(() -> LockNames.requireValid("a\u0001b")).hasMessageContaining("\\u0001");
    }
}
