package io.holdfast.cli;

import io.holdfast.Holdfast;
import io.holdfast.LeaderElection;
import io.holdfast.PermitHold;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.holdfast.cli.CliProcesses.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code status} and {@code list} on a leader and on read-write locks, as real processes on a SQLite file: an elected
 * leader of 'cron' shows as leader with its term, two readers of 'docs' are counted, the writer of 'orders' is named.
 */
class RecipeStatusIT {
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
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void showsLeadersReadersAndWriters() throws Exception {
        String uri = "sqlite:" + dir.resolve("locks.db");
        try (Holdfast reader1 = Holdfast.builder(uri).holderName("reader-1").connect();
             Holdfast reader2 = Holdfast.builder(uri).holderName("reader-2").connect();
             Holdfast writer = Holdfast.builder(uri).holderName("writer").connect();
             Holdfast candidate = Holdfast.builder(uri).holderName("cron-host").connect();
             PermitHold read1 = reader1.readWriteLock("docs").readLock().acquire(Duration.ofSeconds(30));
             PermitHold read2 = reader2.readWriteLock("docs").readLock().acquire(Duration.ofSeconds(30));
             PermitHold write = writer.readWriteLock("orders").writeLock().acquire(Duration.ofSeconds(30));
             LeaderElection election = candidate.leader("cron")) {
            election.start();
            assertThat(eventually(Duration.ofSeconds(30), election::isLeader)).as("elected").isTrue();
            long term = election.term().orElseThrow();

            CliProcesses.Running leader = cli.run("status", "--uri", uri, "cron");
            assertThat(leader.exitCode()).as("%s", leader).isZero();
            List<String> lines = leader.stdout().lines().toList();
            assertThat(lines).as("%s", leader).hasSize(3);
            assertThat(lines.get(1)).matches("cron +leader +cron-host +\\S+ +" + term + " +\\S+");
            assertThat(lines.get(2)).startsWith("leader of 'cron': cron-host, term " + term + " (the hold's fencing token), lease left ");
            assertThat(JsonReader.object(cli.run("status", "--uri", uri, "--json", "cron").stdout()))
                    .containsEntry("role", "leader").containsEntry("fencingToken", term);

            CliProcesses.Running docs = cli.run("status", "--uri", uri, "docs");
            assertThat(docs.stdout().lines().findFirst().orElseThrow()).as("%s", docs)
                    .isEqualTo("read-write lock 'docs': 2 readers of at most 16, by 2 holders");
            CliProcesses.Running orders = cli.run("status", "--uri", uri, "orders");
            assertThat(orders.stdout().lines().findFirst().orElseThrow()).as("%s", orders)
                    .isEqualTo("read-write lock 'orders': written by writer (all 16 permits)");
            Map<String, Object> json = JsonReader.object(cli.run("status", "--uri", uri, "--json", "docs").stdout());
            @SuppressWarnings("unchecked")
            Map<String, Object> readWrite = (Map<String, Object>) ((Map<String, Object>) json.get("semaphore")).get("readWrite");
            assertThat(readWrite).containsEntry("readers", 2L).containsEntry("writePermits", 0L);

            CliProcesses.Running list = cli.run("list", "--uri", uri);
            List<String> rows = list.stdout().lines().toList();
            assertThat(rows).as("%s", list).hasSize(1 + 1 + 3 + 17);
            assertThat(rows.get(1)).matches("cron +leader +cron-host +\\S+ +" + term + " +\\S+");
            assertThat(rows.get(2)).matches("docs +2 readers +2 holders +- +- +-");
            assertThat(rows.subList(3, 5)).allMatch(l -> l.matches(" +#permit-\\d+ +read +reader-[12] .*"));
            assertThat(rows.get(5)).matches("orders +writer +writer +- +- +-");
            assertThat(rows.subList(6, 22)).allMatch(l -> l.matches(" +#permit-\\d+ +write +writer .*"));
            assertThat(read1.isValid() && read2.isValid() && write.isValid() && election.isLeader()).as("every hold still valid").isTrue();
        }
    }
}
