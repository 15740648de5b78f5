package io.holdfast.testkit.torture;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Fault lists, settings, URI rewriting and history lines. */
class TortureUnitsTest {
    @Test
    void faultListsKeepTheirOrderAndRejectUnknownWords() {
        assertThat(Fault.parseList("pause,kill")).containsExactly(Fault.PAUSE, Fault.KILL);
        assertThat(Fault.parseList("all")).containsExactly(Fault.values());
        assertThat(Fault.parseList("follower-partition,leader-kill")).containsExactly(Fault.FOLLOWER_PARTITION, Fault.LEADER_KILL);
        assertThat(Fault.FOLLOWER_PARTITION.label()).isEqualTo("follower-partition");
        assertThat(Fault.parseList("none")).isEmpty();
        assertThat(Fault.parseList("")).isEmpty();
        assertThatThrownBy(() -> Fault.parseList("kill,crash")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'crash'").hasMessageContaining("kill, pause, restart, partition");
    }

    @Test
    void redisTopologiesParseByTheirCommandLineNamesAndDefaultToFaultsTheyCanTake() {
        assertThat(Topology.parse("sentinel")).isEqualTo(Topology.REDIS_SENTINEL);
        assertThat(Topology.parse(" Redlock5 ")).isEqualTo(Topology.REDLOCK5);
        assertThat(Topology.parse("rediscluster")).isEqualTo(Topology.REDIS_CLUSTER);
        assertThatThrownBy(() -> Topology.parse("redis_sentinel")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed: etcd3, zk3, sentinel, redlock5, rediscluster");
        // No follower to aim at on Redis: follower-partition would fail the run; Redlock gets the minority partition.
        assertThat(Topology.REDIS_SENTINEL.defaultFaults()).doesNotContain(Fault.FOLLOWER_PARTITION, Fault.RESTART).contains(Fault.LEADER_PARTITION);
        assertThat(Topology.REDLOCK5.defaultFaults()).doesNotContain(Fault.FOLLOWER_PARTITION, Fault.RESTART).contains(Fault.MINORITY_PARTITION);
        assertThat(Topology.ETCD3.defaultFaults()).isEqualTo(Fault.CLUSTER);
        assertThat(TortureSettings.builder(Topology.REDLOCK5).build().faults()).isEqualTo(Topology.REDLOCK5.defaultFaults());
    }

    @Test
    void postgresTopologiesParseAndTakeOnlyTheFaultsTheyCanAimAt() {
        assertThat(Topology.parse("pg2")).isEqualTo(Topology.PG2);
        assertThat(Topology.parse("PG2sync")).isEqualTo(Topology.PG2_SYNC);
        assertThatThrownBy(() -> Topology.parse("postgres")).hasMessageContaining("pg2, pg2sync");
        // Only Redis servers run under clockstep; SIGSTOP reaches the postmaster, not the backends; no follower serves clients.
        assertThat(Topology.PG2.defaultFaults()).contains(Fault.LEADER_KILL, Fault.LEADER_PARTITION)
                .doesNotContain(Fault.LEADER_CLOCK_STEP, Fault.LEADER_PAUSE, Fault.FOLLOWER_PARTITION, Fault.RESTART);
        assertThat(Fault.CLUSTER).doesNotContain(Fault.LEADER_CLOCK_STEP);
        assertThat(Fault.parseList("leader-clock-step")).containsExactly(Fault.LEADER_CLOCK_STEP);
    }

    @Test
    void settingsOutOfRangeAreRejectedWithWhatIsAllowed() {
        assertThatThrownBy(() -> TortureSettings.builder("sqlite:").clients(0).build()).hasMessageContaining("1 to 32");
        assertThatThrownBy(() -> TortureSettings.builder("sqlite:").duration(Duration.ofMillis(10)).build()).hasMessageContaining("1s to 7d");
        assertThatThrownBy(() -> TortureSettings.builder("sqlite:").lease(Duration.ofMillis(10)).build()).hasMessageContaining("100ms");
        assertThatThrownBy(() -> TortureSettings.builder("sqlite:").clockSkew(5, Duration.ofSeconds(30)).build())
                .hasMessageContaining("client number from 1 to 4");
        assertThatThrownBy(() -> TortureSettings.builder("sqlite:").clockSkew(2, Duration.ofMillis(1500)).build())
                .hasMessageContaining("whole seconds");
        assertThatThrownBy(() -> TortureSettings.builder("sqlite:").clockSkew(2, Duration.ZERO).build()).hasMessageContaining("nonzero");
        assertThatThrownBy(() -> TortureSettings.builder("sqlite:").clockSkew(2, Duration.ofDays(-2)).build()).hasMessageContaining("at most a day");
        assertThat(TortureSettings.builder("sqlite:").clockSkew(3, Duration.ofSeconds(-30)).clockSkew(2, Duration.ofSeconds(30)).build().clockSkews())
                .containsExactly(Map.entry(2, Duration.ofSeconds(30)), Map.entry(3, Duration.ofSeconds(-30)));
        assertThat(ClockSkew.spec(Duration.ofSeconds(-30))).isEqualTo("-30s");
        TortureSettings s = TortureSettings.builder("sqlite:").reportDir(Path.of("r")).build();
        assertThat(s.clients()).isEqualTo(4);
        assertThat(s.faults()).hasSize(4);
    }

    @Test
    void loopbackAddressesOfAnyUriShapeArePointedAtProxies() {
        String zk = "zookeeper://127.0.0.1:2181,127.0.0.1:2182/locks?session=2s";
        assertThat(Endpoints.loopbackPorts(zk)).isEqualTo(Map.of("127.0.0.1:2181", 2181, "127.0.0.1:2182", 2182));
        assertThat(Endpoints.rewrite(zk, port -> port + 10_000)).isEqualTo("zookeeper://127.0.0.1:12181,127.0.0.1:12182/locks?session=2s");
        assertThat(Endpoints.rewrite("jdbc:postgresql://localhost:5432/test?user=postgres", port -> 40_000))
                .isEqualTo("jdbc:postgresql://127.0.0.1:40000/test?user=postgres");
        assertThat(Endpoints.loopbackPorts("sqlite:/tmp/locks.db")).isEmpty();
        assertThat(Endpoints.loopbackPorts("redis://10.1.2.3:6379")).as("never proxies another host").isEmpty();
    }

    @Test
    void historyLinesRoundTripAndAnIncompleteLineIsSkipped() {
        Event e = new Event(1_700_000_000_123_456L, 3, 2, "write:fenced", Event.FAIL, 42, 7, "rejected\tby the\nfence");
        Event back = Event.parse(e.toLine());
        assertThat(back).isEqualTo(new Event(e.micros(), 3, 2, "write:fenced", Event.FAIL, 42, 7, "rejected by the fence"));
        String line = e.toLine();
        assertThat(Event.parse(line.substring(0, line.indexOf("\tfail")))).isNull();
        assertThat(Event.parse("garbage")).isNull();
    }
}
