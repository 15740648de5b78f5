package io.holdfast.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What keeps a call short, checked by what the JVM loads rather than by time: the build's class-data-sharing
 * archive fits the jar and this JVM and holds the classes of a call, and a call on SQLite loads no other store's
 * client library or driver, nor java.util.logging.
 */
@Timeout(180)
class StartupIT {
    /** Client libraries and drivers of the other stores: a SQLite call has no use for any of them. */
    private static final List<String> OTHER_STORES = List.of("org.postgresql.", "org.mariadb.", "com.zaxxer.hikari.",
            "io.lettuce.", "io.netty.", "reactor.", "org.apache.zookeeper.", "org.apache.curator.", "io.etcd.",
            "io.grpc.", "io.vertx.", "net.rubyeye.", "com.google.code.yanf4j.");

    private static final String SHARED = "shared objects file";

    @TempDir
    Path dir;
    private CliProcesses cli;
    private String uri;

    @BeforeEach
    void setUp() {
        cli = new CliProcesses(dir);
        uri = "sqlite:" + dir.resolve("locks.db");
    }

    @AfterEach
    void tearDown() {
        cli.close();
    }

    @Test
    void theBuildsArchiveFitsTheJarAndHoldsTheClassesOfACall() throws Exception {
        Path archive = CliProcesses.JAR.resolveSibling("holdfast.jsa");
        assertThat(Files.getLastModifiedTime(archive)).as("made after the jar")
                .isGreaterThan(Files.getLastModifiedTime(CliProcesses.JAR));

        // -Xshare:on makes the JVM refuse to start if it cannot use the archive (another JVM, another jar).
        Map<String, String> loaded = classesLoadedBy(List.of("-Xshare:on", "-XX:SharedArchiveFile=" + archive),
                "run", "--uri", uri, "job", "--", "true");

        for (String cls : List.of("picocli.CommandLine", "io.holdfast.cli.RunCommand", "io.holdfast.HoldfastClient",
                "io.holdfast.jdbc.JdbcLockStore", "org.sqlite.JDBC")) {
            assertThat(loaded).as(cls).containsEntry(cls, SHARED);
        }
        // Every class of the tool and of picocli: one missing (for example, because the JVM skipped a picocli class
        // while writing the archive) is loaded from the jar on every call. Lambdas are hidden classes, named per run.
        assertThat(loaded.entrySet().stream()
                .filter(e -> e.getKey().startsWith("io.holdfast.") || e.getKey().startsWith("picocli."))
                .filter(e -> !e.getKey().contains("$$Lambda") && !e.getValue().equals(SHARED)).map(Map.Entry::getKey))
                .as("loaded from the jar instead of the archive").isEmpty();
        long fromArchive = loaded.values().stream().filter(SHARED::equals).count();
        assertThat(fromArchive).as("classes from the archive, of %s", loaded.size()).isGreaterThan(loaded.size() * 9 / 10);
    }

    @Test
    void aSqliteCallLoadsNoOtherStoresClientOrDriverNorJavaUtilLogging() throws Exception {
        for (List<String> args : List.of(List.of("run", "--uri", uri, "job", "--", "true"),
                List.of("status", "--uri", uri, "job"), List.of("list", "--uri", uri))) {
            Map<String, String> loaded = classesLoadedBy(List.of(), args.toArray(String[]::new));

            assertThat(loaded).as("the log is complete").containsKey("org.sqlite.JDBC");
            assertThat(loaded).as("java.util.logging is configured only when a library uses it")
                    .doesNotContainKey("java.util.logging.LogManager");
            assertThat(loaded.keySet().stream().filter(c -> OTHER_STORES.stream().anyMatch(c::startsWith)))
                    .as("%s", args).isEmpty();
        }
    }

    /** Runs {@code holdfast ARGS}, which must exit 0, and returns the classes its JVM loaded with their sources. */
    private Map<String, String> classesLoadedBy(List<String> jvmArgs, String... args) throws Exception {
        Path log = dir.resolve("classes-" + System.nanoTime() + ".log");
        List<String> all = new java.util.ArrayList<>(jvmArgs);
        all.add("-Xlog:class+load=info:file=" + log + ":none");
        CliProcesses.Running r = cli.startJava(all, Map.of(), args);
        assertThat(r.await()).as("%s", r).isZero();
        // Lines: "picocli.CommandLine source: shared objects file"
        return Files.readAllLines(log).stream().filter(l -> l.contains(" source: "))
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf(' ')), l -> l.substring(l.indexOf(" source: ") + 9),
                        (a, b) -> a));
    }
}
