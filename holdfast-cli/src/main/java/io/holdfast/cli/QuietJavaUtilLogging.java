package io.holdfast.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.logging.LogManager;

/**
 * The {@code holdfast} command's java.util.logging configuration ({@code holdfast-logging.properties} next to this
 * class): the JDK's defaults (a console handler on stderr, level INFO), except that the client libraries that log
 * through java.util.logging (the PostgreSQL driver; gRPC, Netty and Vert.x under the etcd client) log severe
 * messages only, since {@code holdfast} reports their failures itself, with an exit status. The SLF4J ones (Curator,
 * ZooKeeper, Lettuce, HikariCP, MariaDB) are set in {@code simplelogger.properties}.
 *
 * <p>{@link HoldfastCli#main} names this class in {@code java.util.logging.config.class}, so that
 * {@link LogManager} applies it when a library first logs, and a call that uses no such library (every call on SQLite)
 * does not start java.util.logging at all. Public, with a public constructor, because {@link LogManager} creates it
 * by reflection; not for other use.
 */
public final class QuietJavaUtilLogging {
    /**
     * Reads the configuration into the {@link LogManager}.
     *
     * @throws IOException if the configuration cannot be read from the jar
     */
    public QuietJavaUtilLogging() throws IOException {
        try (InputStream in = QuietJavaUtilLogging.class.getResourceAsStream("holdfast-logging.properties")) {
            if (in == null) {
                throw new IOException("holdfast-logging.properties is missing from the jar");
            }
            LogManager.getLogManager().readConfiguration(in);
        }
    }
}
