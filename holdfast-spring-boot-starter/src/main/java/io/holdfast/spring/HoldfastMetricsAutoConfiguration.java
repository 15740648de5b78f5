package io.holdfast.spring;

import io.holdfast.micrometer.HoldfastMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Records the starter's Holdfast client in Micrometer when {@code holdfast-micrometer} is on the class path and the
 * application has a {@link MeterRegistry} bean: one {@link HoldfastMetrics} listener, tagged with the client's backend.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass({HoldfastMetrics.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
public class HoldfastMetricsAutoConfiguration {

    @Bean
    BackendListenerFactory holdfastMetrics(MeterRegistry registry) {
        return backend -> new HoldfastMetrics(registry, backend);
    }
}
