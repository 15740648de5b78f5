package io.holdfast.spring;

import io.holdfast.Holdfast;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * With Spring Boot's actuator on the class path and a {@link Holdfast} bean: the health indicator {@code holdfast}
 * ({@code management.health.holdfast.enabled}) and the endpoint {@code holdfast} (exposed like any other, for example
 * {@code management.endpoints.web.exposure.include=health,holdfast}).
 */
@AutoConfiguration(after = HoldfastAutoConfiguration.class)
@ConditionalOnClass(value = HealthIndicator.class,
        name = "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator")
@ConditionalOnBean(Holdfast.class)
public class HoldfastActuatorAutoConfiguration {

    /** Counts the starter-built client's lost holds for the health details. */
    @Bean
    @ConditionalOnEnabledHealthIndicator("holdfast")
    RecentLosses holdfastRecentLosses(HoldfastProperties properties) {
        return new RecentLosses(properties.getHealth().getLostWindow());
    }

    @Bean
    @ConditionalOnEnabledHealthIndicator("holdfast")
    @ConditionalOnMissingBean(name = "holdfastHealthIndicator")
    HoldfastHealthIndicator holdfastHealthIndicator(Holdfast holdfast, RecentLosses losses, HoldfastProperties properties) {
        return new HoldfastHealthIndicator(holdfast, losses, properties.getHealth());
    }

    @Bean
    @ConditionalOnAvailableEndpoint(endpoint = HoldfastEndpoint.class)
    @ConditionalOnMissingBean
    HoldfastEndpoint holdfastEndpoint(Holdfast holdfast, HoldfastProperties properties) {
        return new HoldfastEndpoint(holdfast, properties.getHolderName() != null ? properties.getHolderName() : localHolder());
    }

    /** The holder name Holdfast gives a client that sets none: {@code host:pid}. */
    static String localHolder() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException | SecurityException e) {
            host = System.getenv().getOrDefault("HOSTNAME", "unknown-host");
        }
        return host + ":" + ProcessHandle.current().pid();
    }
}
