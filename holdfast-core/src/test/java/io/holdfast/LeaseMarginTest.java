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
    void atLeast100msWhereTheLeaseAllowsButNeverMoreThanAQuarter() {
        assertThat(marginMs(1_000)).isEqualTo(100);
        assertThat(marginMs(200)).isEqualTo(50);
        assertThat(marginMs(100)).isEqualTo(25);
    }
}
