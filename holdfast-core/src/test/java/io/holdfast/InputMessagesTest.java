package io.holdfast;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Review finding 19 and trial B8: bad input is refused with a message that says what is wrong and what is allowed. */
class InputMessagesTest {

    @Test
    void aHugeLeaseIsOutOfRangeNotAnOverflow() {
        assertThatThrownBy(() -> Durations.requireLease(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be at most 7d");
        assertThatThrownBy(() -> Holdfast.builder("sqlite:/x.db").defaultLease(Durations.parse("999999999999d")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease 999999999999d is too long");
        assertThat(Durations.format(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE + "s");
        assertThat(Durations.format(Duration.ofSeconds(Long.MIN_VALUE))).isEqualTo(Long.MIN_VALUE + "s");
    }

    @Test
    void aZeroLeaseMustBeAtLeastTheMinimum() {
        assertThat(Durations.parse("0")).isZero();
        assertThatThrownBy(() -> Durations.requireLease(Durations.parse("0")))
                .hasMessage("lease 0ms is too short; it must be at least 100ms (allowed: 100ms to 7d)");
    }

    @Test
    void aNegativeDurationIsCalledNegative() {
        assertThatThrownBy(() -> Durations.parse("-5s")).hasMessageStartingWith("duration '-5s' is negative");
    }

    @Test
    void aNullLeaseIsCalledNull() {
        assertThatThrownBy(() -> Durations.requireLease(null)).hasMessage("lease is null; allowed: 100ms to 7d");
    }

    @Test
    void waitMessagesPrintDurationsAsLeaseMessagesDo() {
        assertThatThrownBy(() -> Durations.requireWait(Duration.ofSeconds(-1)))
                .hasMessage("wait -1s is not allowed; allowed: zero or a positive duration");
        assertThatThrownBy(() -> Durations.requireWait(null)).hasMessage("wait is null; allowed: zero or a positive duration");
    }

    @Test
    void aBlankHolderNameIsCalledBlank() {
        assertThatThrownBy(() -> Holdfast.builder("sqlite:/x.db").holderName("   "))
                .hasMessage("holder name is blank; allowed: 1 to 200 characters, not all blank");
        assertThatThrownBy(() -> Holdfast.builder("sqlite:/x.db").holderName("h".repeat(201)))
                .hasMessage("holder name is 201 characters long; allowed: 1 to 200 characters, not all blank");
    }

    @Test
    void redactionHidesTheWholePassword() {
        assertThat(Uris.redact("redis://u:p@ss@h:6379")).isEqualTo("redis://u:***@h:6379");
        assertThat(Uris.redact("redis://u:pa/ss@h:6379")).isEqualTo("redis://u:***@h:6379");
        assertThat(Uris.redact("redis://:pw@h:6379/0?prefix=a")).isEqualTo("redis://:***@h:6379/0?prefix=a");
        assertThat(Uris.redact("zookeeper://h:2181/base")).isEqualTo("zookeeper://h:2181/base");
        assertThat(Uris.redact("redis://u@h:6379")).isEqualTo("redis://u@h:6379");
    }

    @Test
    void noBackendMessageSuggestsOnlyModulesThatAreMissing() {
        // The core's tests have no backend on the class path: every module is suggested.
        assertThatThrownBy(() -> Holdfast.connect("nosuch://x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no backend module is on the class path")
                .hasMessageContaining("holdfast-jdbc");
    }

    @Test
    void nearMissesOfKnownParametersAreFound() {
        java.util.List<String> known = java.util.List.of("table", "poolSize", "mode", "busyTimeout", "prefix", "db");
        assertThat(Uris.nearMiss("tabel", known)).isEqualTo("table");
        assertThat(Uris.nearMiss("mdoe", known)).isEqualTo("mode");
        assertThat(Uris.nearMiss("poolsize", known)).isEqualTo("poolSize");
        assertThat(Uris.nearMiss("busyTimout", known)).isEqualTo("busyTimeout");
        assertThat(Uris.nearMiss("prefx", known)).isEqualTo("prefix");
        assertThat(Uris.nearMiss("ssl", known)).isNull();
        assertThat(Uris.nearMiss("dc", known)).isNull();
    }
}
