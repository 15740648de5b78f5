package io.holdfast.cli;

import io.holdfast.testkit.torture.Topology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code holdfast torture --topology zk3} from the shaded jar, as a user runs it: the three ZooKeeper servers are
 * started from the jar itself. Every zk3 server once exited at start with {@code NoClassDefFoundError:
 * com/codahale/metrics/Reservoir} (ZooKeeper's server needs Dropwizard Metrics, which its pom marks provided), a
 * break the torture tests, which run the servers from their own class path, could not see.
 */
class TortureTopologyIT {
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
    void aZooKeeperEnsembleStartsFromTheJarAndAShortRunPasses() throws Exception {
        assertThat(Topology.ZK3.whyUnavailable()).as("zk3 needs root, iproute2 and nftables: run scripts/services").isNull();
        Path report = dir.resolve("zk3");
        CliProcesses.Running torture = cli.run("torture", "--topology", "zk3", "--duration", "5s", "--faults", "none",
                "--report", report.toString(), "--seed", "3");

        assertThat(torture.exitCode()).as("%s", torture).isZero();
        assertThat(torture.stdout()).contains("ZooKeeper ensemble of 3 servers").contains("Verdict:");
        assertThat(Files.lines(report.resolve("history.tsv")).filter(l -> l.contains("\tacquire\tok\t")).count())
                .as("acquisitions in a 5 s run on the ensemble").isPositive();
    }
}
