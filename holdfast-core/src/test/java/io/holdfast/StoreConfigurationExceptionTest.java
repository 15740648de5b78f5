package io.holdfast;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StoreConfigurationExceptionTest {

    @Test
    void aConfigurationErrorIsNotAnUnavailableStore() {
        StoreConfigurationException e = new StoreConfigurationException("postgresql", "h:5432/db", "database \"db\" does not exist", null);
        assertThat(e).isInstanceOf(HoldfastException.class).isNotInstanceOf(StoreUnavailableException.class);
        assertThat(e.getMessage()).isEqualTo("postgresql store at h:5432/db refused the configuration: database \"db\" does not exist");
        assertThat(e.backend()).isEqualTo("postgresql");
        assertThat(e.address()).isEqualTo("h:5432/db");
    }
}
