package io.holdfast.spring;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ClientLoggingDefaults} in applications started as Spring Boot starts them ({@code SpringApplication}, which
 * runs the environment post-processors and applies {@code logging.level.*} to the logging system): the client
 * libraries' loggers are at WARN unless the application sets them, and the application's settings win wherever they
 * come from.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientLoggingDefaultsTest {

    @Configuration(proxyBeanMethods = false)
    static class App {
    }

    private static ConfigurableApplicationContext start(Map<String, Object> defaults, String... args) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).bannerMode(Banner.Mode.OFF).logStartupInfo(false)
                .properties(defaults).properties("logging.register-shutdown-hook=false").run(args);
    }

    private static LogLevel effectiveLevel(ConfigurableApplicationContext context, String logger) {
        return context.getBean(LoggingSystem.class).getLoggerConfiguration(logger).getEffectiveLevel();
    }

    @Test
    void theClientsLoggersAreAtWarnByDefault() {
        try (ConfigurableApplicationContext context = start(Map.of())) {
            Environment environment = context.getEnvironment();
            for (String logger : ClientLoggingDefaults.LOGGERS) {
                assertThat(environment.getProperty("logging.level." + logger)).as(logger).isEqualTo("WARN");
            }
            assertThat(effectiveLevel(context, "org.apache.curator")).isEqualTo(LogLevel.WARN);
            assertThat(effectiveLevel(context, "org.apache.curator.framework.imps.CuratorFrameworkImpl")).as("a logger under it")
                    .isEqualTo(LogLevel.WARN);
            assertThat(effectiveLevel(context, "io.holdfast.Lease")).as("Holdfast's own, untouched").isEqualTo(LogLevel.INFO);
        }
    }

    @Test
    void theApplicationsOwnLevelsWin(@TempDir Path directory) throws Exception {
        Path config = Files.writeString(directory.resolve("application.properties"), "logging.level.io.grpc=INFO\n");
        try (ConfigurableApplicationContext context = start(Map.of("logging.level.io.netty", "ERROR"),
                "--spring.config.additional-location=file:" + config, "--logging.level.org.apache.curator=DEBUG")) {
            assertThat(effectiveLevel(context, "org.apache.curator")).as("from an argument").isEqualTo(LogLevel.DEBUG);
            assertThat(effectiveLevel(context, "io.grpc")).as("from a configuration file").isEqualTo(LogLevel.INFO);
            assertThat(effectiveLevel(context, "io.netty")).as("from SpringApplication's default properties").isEqualTo(LogLevel.ERROR);
            assertThat(effectiveLevel(context, "org.apache.zookeeper")).as("not set by the application").isEqualTo(LogLevel.WARN);
        }
    }

    @Test
    void quietClientsFalseLeavesThemAlone(@TempDir Path directory) throws Exception {
        Path config = Files.writeString(directory.resolve("application.properties"), "holdfast.logging.quiet-clients=false\n");
        try (ConfigurableApplicationContext context = start(Map.of(), "--spring.config.additional-location=file:" + config)) {
            assertThat(context.getEnvironment().getProperty("logging.level.org.apache.curator")).isNull();
            assertThat(effectiveLevel(context, "org.apache.curator")).as("the root's level").isEqualTo(LogLevel.INFO);
        }
    }
}
