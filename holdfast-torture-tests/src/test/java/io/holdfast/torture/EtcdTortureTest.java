package io.holdfast.torture;

import io.holdfast.testkit.LoopbackPorts;
import io.holdfast.testkit.torture.Fault;
import io.holdfast.testkit.torture.TortureResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

/**
 * The torture run on a single etcd member started here (Debian's {@code etcd}); a restart kills it with
 * SIGKILL and starts it on its data directory, as after a crash. etcd is linearizable: besides the fenced
 * counter, mutual exclusion and token order must hold.
 */
class EtcdTortureTest {
    private static final String ETCD = "/usr/bin/etcd";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    @TempDir
    Path dir;
    private LocalServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void underKillsPausesRestartsAndPartitionsTheLockHoldsAndTheFencedCounterStaysExact() throws Exception {
        LocalServer.requireExecutable(ETCD, "etcd-server");
        int clientPort = LoopbackPorts.unusedPort();
        int peerPort = LoopbackPorts.unusedPort();
        String client = "http://127.0.0.1:" + clientPort;
        String peer = "http://127.0.0.1:" + peerPort;
        server = new LocalServer("etcd 127.0.0.1:" + clientPort + " (single member, data kept across restarts)",
                List.of(ETCD, "--name", "m1", "--data-dir", dir.resolve("m1.data").toString(),
                        "--listen-client-urls", client, "--advertise-client-urls", client,
                        "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                        "--initial-cluster", "m1=" + peer, "--initial-cluster-state", "new",
                        // as in holdfast-etcd's tests: short elections, so leases of a second or two are kept
                        "--heartbeat-interval", "100", "--election-timeout", "600"),
                dir.resolve("etcd.log"), () -> healthy(client));
        server.start();

        TortureResult r = TortureRuns.run(TortureRuns.settings("etcd", "etcd://127.0.0.1:" + clientPort + "/torture",
                Fault.SINGLE_SERVER).build(), server);

        TortureRuns.assertFencedCounterExactUnderEveryFault(r, Fault.SINGLE_SERVER);
        TortureRuns.assertLinearizableLock(r);
    }

    private static boolean healthy(String clientUrl) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(clientUrl + "/health")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().contains("\"true\"");
        } catch (Exception e) {
            return false;
        }
    }
}
