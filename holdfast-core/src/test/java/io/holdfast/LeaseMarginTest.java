package io.holdfast;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class LeaseMarginTest {
    private static long marginMs(long leaseMs) {
        return TimeUnit.NANOSECONDS.toMillis(Lease.safetyMargin(TimeUnit.MILLISECONDS.toNanos(leaseMs)));
    }

    @Test
    void aTwentiethOfLongLeases() {
        assertThat(marginMs(30_000)).isEqualTo(1_500);
        assertThat(marginMs(10_000)).isEqualTo(500);
    }

    @Test
    void atLeast250msWhereTheLeaseAllowsButNeverMoreThanAQuarter() {
        assertThat(marginMs(2_000)).isEqualTo(250);
        assertThat(marginMs(1_000)).isEqualTo(250);
        assertThat(marginMs(400)).isEqualTo(100);
        assertThat(marginMs(100)).isEqualTo(25);
    }
}
