package io.holdfast.cli;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.holdfast.cli.CliProcesses.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code status}, {@code list}, {@code release} and {@code init} as real processes. */
class AdminIT {
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
    void statusShowsHolderOwnerTokenAndLeaseLeftAsTableAndJson() throws Exception {
        try (Holdfast holdfast = Holdfast.connect(uri); Hold hold = holdfast.lock("jobs/backup").acquire(Duration.ofSeconds(10))) {
            String holder = holdfast.admin().status("jobs/backup").orElseThrow().holder();
            CliProcesses.Running json = cli.run("status", "--uri", uri, "--json", "jobs/backup");
            CliProcesses.Running human = cli.run("status", "--uri", uri, "jobs/backup");

            assertThat(json.exitCode()).as("%s", json).isZero();
            Map<String, Object> status = JsonReader.object(json.stdout());
            assertThat(status).containsEntry("name", "jobs/backup").containsEntry("known", true).containsEntry("held", true)
                    .containsEntry("holder", holder).containsEntry("fencingToken", hold.fencingToken());
            assertThat(holder).endsWith(":" + ProcessHandle.current().pid());
            assertThat((String) status.get("ownerId")).isNotBlank();
            assertThat((Long) status.get("leaseRemainingMillis")).isBetween(1L, 30_000L);

            assertThat(human.exitCode()).as("%s", human).isZero();
            List<String> lines = human.stdout().lines().toList();
            assertThat(lines).hasSize(2);
            assertThat(lines.get(0)).startsWith("NAME").contains("HOLDER").contains("TOKEN").contains("LEASE LEFT");
            assertThat(lines.get(1)).startsWith("jobs/backup").contains(holder).contains(" " + hold.fencingToken() + " ");
            assertThat(lines.get(1).indexOf(holder)).as("aligned under its header").isEqualTo(lines.get(0).indexOf("HOLDER"));
        }
    }

    @Test
    void statusOfANameTheStoreNeverSawSaysSo() throws Exception {
        CliProcesses.Running json = cli.run("status", "--uri", uri, "--json", "never");
        CliProcesses.Running human = cli.run("status", "--uri", uri, "never");

        assertThat(JsonReader.object(json.stdout())).containsEntry("known", false).containsEntry("held", false)
                .containsEntry("holder", null);
        assertThat(human.stdout()).contains("not known");
    }

    @Test
    void listShowsHeldLocksUnderAPrefixInNameOrder() throws Exception {
        try (Holdfast holdfast = Holdfast.connect(uri);
             Hold b = holdfast.lock("jobs/b").acquire(Duration.ofSeconds(10));
             Hold a = holdfast.lock("jobs/a").acquire(Duration.ofSeconds(10));
             Hold other = holdfast.lock("other").acquire(Duration.ofSeconds(10))) {
            CliProcesses.Running json = cli.run("list", "--uri", uri, "--json", "jobs/");
            CliProcesses.Running all = cli.run("list", "--uri", uri);
            CliProcesses.Running limited = cli.run("list", "--uri", uri, "--limit", "1");

            List<Object> locks = JsonReader.array(json.stdout());
            assertThat(locks.stream().map(o -> (Object) ((Map<?, ?>) o).get("name")).toList()).containsExactly((Object) "jobs/a", "jobs/b");
            assertThat(locks.stream().map(o -> (Object) ((Map<?, ?>) o).get("fencingToken")).toList())
                    .containsExactly((Object) a.fencingToken(), (Object) b.fencingToken());
            assertThat(all.stdout().lines().skip(1).map(l -> l.split(" ")[0]).toList()).containsExactly("jobs/a", "jobs/b", "other");
            assertThat(limited.stdout()).contains("jobs/a").doesNotContain("jobs/b").contains("--limit");
        }
    }

    @Test
    void releaseRefusesWithoutForceAndWithItFreesTheLockSoItsHolderLosesIt() throws Exception {
        try (Holdfast holdfast = Holdfast.connect(uri)) {
            Hold hold = holdfast.lock("stuck", Duration.ofSeconds(3), true).acquire(Duration.ofSeconds(10));

            CliProcesses.Running refused = cli.run("release", "--uri", uri, "stuck");
            assertThat(refused.exitCode()).as("%s", refused).isEqualTo(ExitCodes.USAGE);
            assertThat(refused.stderr()).contains("--force");
            assertThat(holdfast.admin().status("stuck").orElseThrow().held()).isTrue();

            CliProcesses.Running forced = cli.run("release", "--force", "--uri", uri, "stuck");
            assertThat(forced.exitCode()).as("%s", forced).isZero();
            assertThat(forced.stdout()).contains("released 'stuck'").contains("token " + hold.fencingToken());
            assertThat(holdfast.admin().status("stuck").orElseThrow().held()).isFalse();
            assertThat(eventually(Duration.ofSeconds(30), () -> !hold.isValid())).as("the holder learns of it").isTrue();

            CliProcesses.Running again = cli.run("release", "--force", "--uri", uri, "stuck");
            assertThat(again.exitCode()).isZero();
            assertThat(again.stdout()).contains("was not held");
        }
    }

    @Test
    void initCreatesTheStoreAndSaysSo() throws Exception {
        Path db = dir.resolve("fresh.db");
        CliProcesses.Running r = cli.run("init", "--uri", "sqlite:" + db);

        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.stdout()).startsWith("ready: sqlite").contains(db.toString());
        assertThat(Files.exists(db)).isTrue();
    }
}
