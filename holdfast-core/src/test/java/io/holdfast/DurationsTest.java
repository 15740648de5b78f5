package io.holdfast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsTest {

    @ParameterizedTest
    @CsvSource({"500ms,500", "10s,10000", "5m,300000", "2h,7200000", "1d,86400000", "PT10S,10000", "pt1.5s,1500", " 7s ,7000", "0s,0"})
    void parsesShortFormsAndIso(String text, long millis) {
        assertThat(Durations.parse(text)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "10", "ten seconds", "-5s", "5 s", "PT-1S", "1w", "1.5s"})
    void rejectsOthersNamingTheForms(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("500ms, 10s, 5m");
    }

    @Test
    void formatsInTheLargestExactUnit() {
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(Durations.format(Duration.ofSeconds(30))).isEqualTo("30s");
        assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("90m");
        assertThat(Durations.format(Duration.ofDays(7))).isEqualTo("7d");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0ms");
    }

    @Test
    void leasesMustLieInTheAllowedRange() {
        assertThat(Durations.requireLease(Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(100));
        assertThat(Durations.requireLease(Duration.ofDays(7))).isEqualTo(Duration.ofDays(7));
        assertThatThrownBy(() -> Durations.requireLease(Duration.ofMillis(99))).hasMessageContaining("allowed: 100ms to 7d");
        assertThatThrownBy(() -> Durations.requireLease(Duration.ofDays(8))).hasMessageContaining("allowed: 100ms to 7d");
        assertThatThrownBy(() -> Durations.requireLease(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void waitsMustNotBeNegative() {
        assertThat(Durations.requireWait(Duration.ZERO)).isZero();
        assertThatThrownBy(() -> Durations.requireWait(Duration.ofMillis(-1))).hasMessageContaining("zero or a positive duration");
    }
}
