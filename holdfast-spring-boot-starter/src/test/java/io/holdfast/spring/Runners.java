package io.holdfast.spring;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Application contexts as Spring Boot builds them, with the starter's auto-configurations. */
final class Runners {
    static final String POSTGRES_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    static final String POSTGRES_URI = POSTGRES_URL + "?user=postgres";

    private Runners() {
    }

    /** Boot's AOP auto-configuration (the auto-proxy creator an application has) and the starter's. */
    static ApplicationContextRunner starter() {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                HoldfastAutoConfiguration.class, LockedAutoConfiguration.class));
    }

    /** A {@code sqlite:} URI of a new file (the store creates its table in it). */
    static String sqliteUri() {
        try {
            Path file = Files.createTempFile("holdfast-starter-", ".db");
            file.toFile().deleteOnExit();
            return "sqlite:" + file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
