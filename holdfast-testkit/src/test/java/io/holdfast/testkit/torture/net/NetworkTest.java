package io.holdfast.testkit.torture.net;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The network on real namespaces (needs root, iproute2 and nftables, as CI has): two members talk over
 * TCP and UDP, a partition stops them both ways, a one-way cut only one way, a lossy link of 100% stops
 * them, healing restores everything, and closing leaves no namespace and no process behind.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NetworkTest {
    private static final int PORT = 7007;
    private Network network;
    private Network.Member a;
    private Network.Member b;
    private Process probe;
    private final BlockingQueue<String> probeLines = new LinkedBlockingQueue<>();

    @BeforeEach
    void build() throws Exception {
        String why = Network.whyUnavailable();
        assertThat(why).as("this test needs root, ip and nft (scripts/services installs them)").isNull();
        network = Network.create();
        a = network.add("a", 2);
        b = network.add("b", 3);
        List<String> java = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx32m",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), EchoProbe.class.getName(), Integer.toString(PORT));
        probe = new ProcessBuilder(network.inside(a, java)).redirectErrorStream(true).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    probeLines.add(line);
                }
            } catch (IOException e) {
                // ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        assertThat(probeLines.poll(60, TimeUnit.SECONDS)).as("the probe in a's namespace starts").isEqualTo("listening");
    }

    @AfterEach
    void tearDown() {
        if (network != null) {
            network.close();
        }
    }

    /** A TCP round trip from b to a's probe within 3 s: the echoed line, or null if none came. */
    private String tcpFromB(String text) throws IOException {
        Commands.Outcome o = Commands.run(network.inside(b, List.of("timeout", "3", "bash", "-c",
                "exec 3<>/dev/tcp/" + a.address() + "/" + PORT + " && echo " + text + " >&3 && read -r line <&3 && echo \"$line\"")), null);
        return o.ok() ? o.output() : null;
    }

    /** Sends a UDP datagram from b to a; true if a's probe printed it within 2 s. */
    private boolean udpFromBArrives(String text) throws Exception {
        // A send that b's own firewall drops fails with EPERM; either way nothing must arrive.
        Commands.run(network.inside(b, List.of("bash", "-c", "echo " + text + " > /dev/udp/" + a.address() + "/" + PORT)), null);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        String line;
        while ((line = probeLines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) != null) {
            if (line.equals("udp " + text)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aPartitionStopsTrafficBothWaysUntilHealed() throws Exception {
        assertThat(tcpFromB("before")).isEqualTo("echo before");
        assertThat(udpFromBArrives("u1")).isTrue();

        Partition p = network.partition(List.of(a), List.of(b));
        assertThat(p.sides()).isEqualTo("a | b");
        assertThat(tcpFromB("during")).as("TCP across the partition").isNull();
        assertThat(udpFromBArrives("u2")).as("UDP across the partition").isFalse();

        network.heal();
        assertThat(tcpFromB("after")).isEqualTo("echo after");
        assertThat(udpFromBArrives("u3")).isTrue();
    }

    @Test
    void aOneWayCutDropsOnlyItsDirection() throws Exception {
        Partition toB = network.cutOneWay(List.of(a), List.of(b));
        assertThat(toB.sides()).isEqualTo("a -> b");
        assertThat(udpFromBArrives("b-to-a")).as("b to a still flows").isTrue();
        assertThat(tcpFromB("handshake")).as("TCP needs both ways").isNull();
        network.heal();

        network.cutOneWay(List.of(b), List.of(a));
        assertThat(udpFromBArrives("b-to-a-cut")).as("b to a is cut").isFalse();
        network.heal();
        assertThat(tcpFromB("healed")).isEqualTo("echo healed");
    }

    @Test
    void aLinkLosingEveryPacketCarriesNothingUntilHealed() throws Exception {
        String how = network.slow(b, Duration.ofMillis(100), 100);
        assertThat(how).containsAnyOf("tc netem", "nft drops 100%");
        assertThat(tcpFromB("lossy")).isNull();
        network.heal();
        assertThat(tcpFromB("healed")).isEqualTo("echo healed");
    }

    @Test
    void closingKillsWhatRunsInsideAndLeavesNoNamespace() throws Exception {
        List<String> mine = new ArrayList<>();
        for (String ns : Network.namespaces()) {
            if (ns.startsWith(a.namespace().substring(0, a.namespace().length() - 1))) {
                mine.add(ns);
            }
        }
        assertThat(mine).contains(a.namespace(), b.namespace()).hasSize(3); // a, b and the switch
        network.close();
        assertThat(probe.waitFor(20, TimeUnit.SECONDS)).as("the probe inside a's namespace was killed").isTrue();
        assertThat(Network.namespaces()).doesNotContainAnyElementsOf(mine);
    }

    @Test
    void namespacesLeftByADeadJvmAreRemovedByTheNextNetwork() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor(10, TimeUnit.SECONDS);
        String stale = Network.PREFIX + gone.pid() + "-1-left";
        Commands.check("ip", "netns", "add", stale);
        assertThat(Network.namespaces()).contains(stale);
        try (Network next = Network.create()) {
            assertThat(Network.namespaces()).doesNotContain(stale);
        } finally {
            Commands.run(List.of("ip", "netns", "del", stale), null);
        }
    }
}
