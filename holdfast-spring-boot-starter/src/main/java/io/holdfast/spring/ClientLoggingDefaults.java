package io.holdfast.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sets the loggers of the client libraries under Holdfast's backends (ZooKeeper and Curator, gRPC, Netty, jetcd and
 * Vert.x, HikariCP and the JDBC drivers, Lettuce, Xmemcached) to WARN by default: a {@code logging.level.*} property
 * source added last, so that any setting of the application for one of these loggers (its own
 * {@code application.properties}, arguments, environment, even {@code SpringApplication}'s default properties) wins.
 * {@code holdfast.logging.quiet-clients=false} leaves them alone. Registered in {@code META-INF/spring.factories} and
 * run after Spring Boot's own post-processors, once the application's configuration files are in the environment.
 */
final class ClientLoggingDefaults implements EnvironmentPostProcessor, Ordered {
    static final String PROPERTY_SOURCE = "holdfastClientLoggingDefaults";
    static final String ENABLED = "holdfast.logging.quiet-clients";
    /** The list the root README's "Logging" section gives; keep them equal. */
    static final List<String> LOGGERS = List.of("org.apache.zookeeper", "org.apache.curator", "io.grpc", "io.netty",
            "io.etcd.jetcd", "io.vertx", "com.zaxxer.hikari", "org.postgresql", "org.mariadb.jdbc", "io.lettuce",
            "net.rubyeye.xmemcached", "com.google.code.yanf4j");

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.getProperty(ENABLED, Boolean.class, true) || environment.getPropertySources().contains(PROPERTY_SOURCE)) {
            return;
        }
        Map<String, Object> levels = new LinkedHashMap<>();
        LOGGERS.forEach(logger -> levels.put("logging.level." + logger, "WARN"));
        environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE, levels));
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
