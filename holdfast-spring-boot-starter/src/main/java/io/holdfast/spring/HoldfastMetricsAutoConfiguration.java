package io.holdfast.spring;

import io.holdfast.LockListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

import java.lang.reflect.InvocationTargetException;

/**
 * Records the starter's Holdfast client in Micrometer when {@code holdfast-micrometer} is on the class path and the
 * application has a {@link MeterRegistry} bean: one {@code io.holdfast.micrometer.HoldfastMetrics} listener, tagged
 * with the client's backend. The class is named, not linked, so the starter builds without that module.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(name = {HoldfastMetricsAutoConfiguration.METRICS, "io.micrometer.core.instrument.MeterRegistry"})
@ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
public class HoldfastMetricsAutoConfiguration {
    static final String METRICS = "io.holdfast.micrometer.HoldfastMetrics";

    @Bean
    BackendListenerFactory holdfastMetrics(MeterRegistry registry) {
        return backend -> metrics(registry, backend);
    }

    /** {@code new HoldfastMetrics(registry, backend)}. */
    static LockListener metrics(MeterRegistry registry, String backend) {
        try {
            Object metrics = Class.forName(METRICS, true, HoldfastMetricsAutoConfiguration.class.getClassLoader())
                    .getConstructor(MeterRegistry.class, String.class).newInstance(registry, backend);
            if (!(metrics instanceof LockListener listener)) {
                throw new IllegalStateException(METRICS + " is not a " + LockListener.class.getName() + "; holdfast-micrometer and "
                        + "holdfast-spring-boot-starter must be of the same version");
            }
            return listener;
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create " + METRICS + "(MeterRegistry, String); holdfast-micrometer and "
                    + "holdfast-spring-boot-starter must be of the same version", e);
        }
    }
}
