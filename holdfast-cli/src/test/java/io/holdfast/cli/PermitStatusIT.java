package io.holdfast.cli;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LeaderElection;
import io.holdfast.LockInfo;
import io.holdfast.PermitHold;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.holdfast.cli.CliProcesses.eventually;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code status} and {@code list} on semaphores of 3 permits (a read-write lock is one of 16, the same in the store) as
 * real processes: two holders of one permit each of one, a holder of all 3 of another (what a writer holds), one
 * waiting for all 3 at the first one's gate; on a SQLite file and on a ZooKeeper server. And leaders and read-write locks,
 * which clients mark in their holds' owner ids, on a SQLite file.
 */
class PermitStatusIT {
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
    void onSqlite() throws Exception {
        showsReadersWritersAndAcquirers("sqlite:" + dir.resolve("locks.db"));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void onZooKeeper() throws Exception {
        try (TestingServer zk = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 2_000, 0, Map.of(), "127.0.0.1"), true)) {
            showsReadersWritersAndAcquirers("zookeeper://127.0.0.1:" + zk.getPort() + "/cli");
        }
    }

    private void showsReadersWritersAndAcquirers(String uri) throws Exception {
        try (Holdfast reader1 = Holdfast.builder(uri).holderName("reader-1").connect();
             Holdfast reader2 = Holdfast.builder(uri).holderName("reader-2").connect();
             Holdfast writer = Holdfast.builder(uri).holderName("writer").connect();
             Holdfast waiter = Holdfast.builder(uri).holderName("waiting-writer").connect();
             PermitHold read1 = reader1.semaphore("catalog", 3, Duration.ofSeconds(30), true).acquire(1, Duration.ofSeconds(30));
             PermitHold read2 = reader2.semaphore("catalog", 3, Duration.ofSeconds(30), true).acquire(1, Duration.ofSeconds(30));
             PermitHold write = writer.semaphore("orders", 3, Duration.ofSeconds(30), true).acquire(3, Duration.ofSeconds(30));
             Hold plain = writer.lock("jobs/a").acquire(Duration.ofSeconds(30))) {

            CliProcesses.Running known = cli.run("status", "--uri", uri, "--permits", "3", "catalog");
            assertThat(known.exitCode()).as("%s", known).isZero();
            List<String> lines = known.stdout().lines().toList();
            assertThat(lines).as("%s", known).hasSize(4);
            assertThat(lines.get(0)).isEqualTo("semaphore or read-write lock 'catalog': 2 of 3 permits held, by 2 holders; 1 free");
            assertThat(lines.get(1)).startsWith("PERMIT").contains("HOLDER").contains("TOKEN").contains("LEASE LEFT");
            assertThat(lines.subList(2, 4)).as("the readers").allMatch(l -> l.matches(" *[0-2]  reader-[12] .*"))
                    .anyMatch(l -> l.contains("reader-1")).anyMatch(l -> l.contains("reader-2"));

            CliProcesses.Running unknown = cli.run("status", "--uri", uri, "catalog");
            assertThat(unknown.stdout().lines().findFirst().orElseThrow()).as("%s", unknown)
                    .matches("semaphore or read-write lock 'catalog': 2 permits held, by 2 holders; it has at least [23] "
                            + "\\(#permit-[12] is held; --permits N says how many\\)");

            CliProcesses.Running writing = cli.run("status", "--uri", uri, "--permits", "3", "orders");
            assertThat(writing.stdout()).as("%s", writing)
                    .startsWith("semaphore or read-write lock 'orders': 3 of 3 permits held, by writer: a write lock, or 3 reads by one process\n");
            assertThat(writing.stdout().lines().skip(2).toList()).hasSize(3).allMatch(l -> l.contains(" writer "));

            Map<String, Object> json = JsonReader.object(cli.run("status", "--uri", uri, "--json", "catalog").stdout());
            assertThat(json).containsEntry("known", false).containsEntry("held", false);
            @SuppressWarnings("unchecked")
            Map<String, Object> semaphore = (Map<String, Object>) json.get("semaphore");
            assertThat(semaphore).containsEntry("permitsHeld", 2L).containsEntry("permits", null).containsEntry("holders", 2L)
                    .containsEntry("gate", null);
            assertThat(((List<?>) semaphore.get("held")).stream().map(h -> (Object) ((Map<?, ?>) h).get("holder")).toList())
                    .containsExactlyInAnyOrder((Object) "reader-1", "reader-2");
            assertThat(JsonReader.object(cli.run("status", "--uri", uri, "--json", "jobs/a").stdout()))
                    .as("a plain lock").containsEntry("held", true).containsEntry("semaphore", null);

            CliProcesses.Running list = cli.run("list", "--uri", uri);
            List<String> rows = list.stdout().lines().toList();
            assertThat(rows).as("%s", list).hasSize(1 + 3 + 1 + 4);
            assertThat(rows.get(1)).matches("catalog +2 permits +2 holders +- +- +-");
            assertThat(rows.subList(2, 4)).allMatch(l -> l.matches(" +#permit-[0-2] +yes +reader-[12] .*"));
            assertThat(rows.get(4)).startsWith("jobs/a ");
            assertThat(rows.get(5)).matches("orders +3 permits +writer +- +- +-");
            assertThat(rows.subList(6, 9)).extracting(l -> l.trim().split(" +")[0]).containsExactly("#permit-0", "#permit-1", "#permit-2");
            assertThat(list.stdout()).as("a free gate is not shown").doesNotContain("#gate");

            // A writer at the gate of 'catalog': it takes the free permit and waits there for the two readers.
            CompletableFuture<PermitHold> waiting = waiter.semaphore("catalog", 3, Duration.ofSeconds(30), true)
                    .acquireAsync(3, Duration.ofSeconds(60));
            assertThat(eventually(Duration.ofSeconds(30), () -> reader1.admin().status("catalog#gate").map(LockInfo::held).orElse(false)))
                    .as("the waiting writer holds the gate").isTrue();
            CliProcesses.Running acquiring = cli.run("list", "--uri", uri, "catalog");
            assertThat(acquiring.stdout().lines().toList()).as("%s", acquiring)
                    .anyMatch(l -> l.matches(" +#gate +acquiring +waiting-writer .*"));
            CliProcesses.Running atGate = cli.run("status", "--uri", uri, "catalog");
            assertThat(atGate.stdout()).as("%s", atGate).contains("\nacquiring: waiting-writer holds catalog#gate (token ");
            waiting.cancel(true);
            assertThat(read1.isValid() && read2.isValid() && write.isValid() && plain.isValid()).as("every hold still valid").isTrue();
        }
    }

    /**
     * A leader and read-write locks: an elected leader of 'cron' shows as leader with its term, two readers of 'docs'
     * are counted, the writer of 'orders' is named.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void showsLeadersReadersAndWritersOnSqlite() throws Exception {
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
