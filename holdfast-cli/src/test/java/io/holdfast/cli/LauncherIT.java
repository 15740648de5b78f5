package io.holdfast.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ./holdfast} launcher at the repository root runs the built jar with stdout left to the tool, builds
 * only when there is no jar (or when asked), and never fails a call for its start-up aids. The tests that need a
 * tree of their own run a copy of the launcher in a temporary "repository" whose {@code mvnw} is a stand-in that
 * records its calls, so no test runs Maven.
 */
@Timeout(180)
class LauncherIT {
    @TempDir
    Path dir;
    private CliProcesses cli;

    @BeforeEach
    void setUp() {
        cli = new CliProcesses(dir);
    }

    @AfterEach
    void tearDown() {
        cli.close();
    }

    @Test
    void launcherIsExecutableAndPassesArgumentsStdoutAndExitStatusThrough() throws Exception {
        assertThat(Files.isExecutable(CliProcesses.ROOT.resolve("holdfast"))).isTrue();
        String uri = "sqlite:" + dir.resolve("locks.db");

        CliProcesses.Running run = cli.startLauncher("run", "--uri", uri, "launched", "--", "sh", "-c",
                "echo \"token=$HOLDFAST_FENCING_TOKEN\"; exit 4");
        assertThat(run.await()).as("%s", run).isEqualTo(4);
        assertThat(run.stdout()).isEqualTo("token=1\n");

        CliProcesses.Running status = cli.startLauncher("status", "--json", "--uri", uri, "launched");
        assertThat(status.await()).as("%s", status).isZero();
        assertThat(JsonReader.object(status.stdout())).containsEntry("fencingToken", 1L).containsEntry("held", false);

        CliProcesses.Running usage = cli.startLauncher("run", "--uri", uri, "--lease", "forever", "x", "--", "true");
        assertThat(usage.await()).isEqualTo(ExitCodes.USAGE);
        assertThat(usage.stdout()).isEmpty();
    }

    @Test
    void sourcesNewerThanTheJarAreNotScannedPerCallButRebuildWhenAsked() throws Exception {
        Tree tree = new Tree(true);
        Path source = tree.root.resolve("holdfast-core/src/main/java/Changed.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, "class Changed {}\n");
        Files.setLastModifiedTime(source, later(tree.jar(), 60));

        CliProcesses.Running call = cli.startLauncher(tree.launcher(), Map.of(), "--version");
        assertThat(call.await()).as("%s", call).isZero();
        assertThat(call.stdout()).startsWith("holdfast ");
        assertThat(tree.builds()).as("no build per call").isEmpty();

        CliProcesses.Running asked = cli.startLauncher(tree.launcher(), Map.of("HOLDFAST_REBUILD", "1"), "--version");
        assertThat(asked.await()).as("%s", asked).isEqualTo(ExitCodes.INTERNAL); // the stand-in build fails
        assertThat(tree.builds()).containsExactly("-q -B -pl holdfast-cli -am package -DskipTests");
        assertThat(asked.stderr()).contains("holdfast: building").contains("the build failed");
        assertThat(asked.stdout()).isEmpty();
    }

    @Test
    void aFreshCloneIsBuiltOnFirstUseWithTheBuildOutputOnStderr() throws Exception {
        Tree tree = new Tree(false);

        CliProcesses.Running first = cli.startLauncher(tree.launcher(), Map.of("REAL_JAR", CliProcesses.JAR.toString()), "--version");
        assertThat(first.await()).as("%s", first).isZero();
        assertThat(first.stdout()).startsWith("holdfast ");
        assertThat(first.stderr()).contains("holdfast: building").contains("stand-in build");
        CliProcesses.Running second = cli.startLauncher(tree.launcher(), Map.of(), "--version");
        assertThat(second.await()).as("%s", second).isZero();
        assertThat(tree.builds()).hasSize(1);
    }

    @Test
    void anArchiveTheJvmCannotUseNeverFailsACallNorPrintsAnything() throws Exception {
        Tree tree = new Tree(true);
        Path archive = tree.root.resolve("holdfast-cli/target/holdfast.jsa");
        Path realArchive = CliProcesses.JAR.resolveSibling("holdfast.jsa");
        assertThat(realArchive).as("the build made the archive").exists();
        String uri = "sqlite:" + dir.resolve("locks.db");

        // An archive made for another jar (the build's, at another path), then one that is not an archive at all.
        for (byte[] content : List.of(Files.readAllBytes(realArchive), "not an archive".getBytes())) {
            Files.deleteIfExists(archive);
            Files.write(archive, content);
            Files.setLastModifiedTime(archive, later(tree.jar(), 60)); // newer than the jar: the launcher passes it
            CliProcesses.Running run = cli.startLauncher(tree.launcher(), Map.of(), "run", "--uri", uri, "job", "--",
                    "sh", "-c", "echo ran");
            assertThat(run.await()).as("%s", run).isZero();
            assertThat(run.stdout()).isEqualTo("ran\n");
            assertThat(run.stderr()).isEmpty();
        }
    }

    private static FileTime later(Path than, long seconds) throws IOException {
        return FileTime.from(Files.getLastModifiedTime(than).toInstant().plusSeconds(seconds));
    }

    /** A copy of the launcher in a tree of its own, with a stand-in mvnw that records its arguments. */
    private final class Tree {
        final Path root = dir.resolve("repo");

        Tree(boolean built) throws IOException {
            Files.createDirectories(root.resolve("holdfast-cli/target"));
            Files.copy(CliProcesses.ROOT.resolve("holdfast"), launcher(), StandardCopyOption.COPY_ATTRIBUTES);
            if (built) {
                Files.copy(CliProcesses.JAR, jar());
                Files.setLastModifiedTime(jar(), FileTime.from(Instant.now().minusSeconds(3600)));
            }
            // Builds by copying the real jar when REAL_JAR is set, and fails otherwise.
            Path mvnw = root.resolve("mvnw");
            Files.writeString(mvnw, "#!/bin/sh\n"
                    + "echo \"$*\" >> \"$0.calls\"\n"
                    + "echo 'stand-in build'\n"
                    + "[ -n \"$REAL_JAR\" ] && cp \"$REAL_JAR\" holdfast-cli/target/holdfast.jar\n");
            Files.setPosixFilePermissions(mvnw, PosixFilePermissions.fromString("rwxr-xr-x"));
        }

        Path launcher() {
            return root.resolve("holdfast");
        }

        Path jar() {
            return root.resolve("holdfast-cli/target/holdfast.jar");
        }

        List<String> builds() throws IOException {
            Path calls = root.resolve("mvnw.calls");
            return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
        }
    }
}
