package io.holdfast.zookeeper;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding Z10: a waiter that gives up leaves no watch on its predecessor on the server (it
 * would otherwise stay there until the holder releases), and no queue node.
 */
class WatchCleanupTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWaiterThatGivesUpLeavesNoWatchOnTheServer() throws Exception {
        String before = System.getProperty("zookeeper.4lw.commands.whitelist");
        System.setProperty("zookeeper.4lw.commands.whitelist", "*"); // read when the server starts
        try (TestingServer server = TestEnsembles.single();
             Holdfast a = Holdfast.connect("zookeeper://127.0.0.1:" + server.getPort() + "/watch-cleanup");
             Holdfast b = Holdfast.connect("zookeeper://127.0.0.1:" + server.getPort() + "/watch-cleanup")) {
            String name = "watch-cleanup/" + UUID.randomUUID();
            try (Hold held = a.lock(name).acquire(Duration.ofSeconds(10))) {
                assertThat(b.lock(name).tryAcquire(Duration.ofMillis(1_500))).as("B's wait on a held lock").isEmpty();
                String watches = "";
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                do {
                    Thread.sleep(100);
                    watches = fourLetterWord(server.getPort(), "wchp");
                } while (watches.contains(name) && System.nanoTime() < deadline);
                System.out.println("watches by path after B gave up: [" + watches.strip().replace("\n", " ") + "]");
                assertThat(watches).as("server-side watches after the waiter gave up").doesNotContain(name);
                assertThat(a.admin().status(name).orElseThrow().ownerId()).as("A still holds").isNotNull();
            }
        } finally {
            if (before == null) {
                System.clearProperty("zookeeper.4lw.commands.whitelist");
            } else {
                System.setProperty("zookeeper.4lw.commands.whitelist", before);
            }
        }
    }

    private static String fourLetterWord(int port, String word) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            socket.setSoTimeout(2_000);
            socket.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            socket.getInputStream().transferTo(out);
            return out.toString(StandardCharsets.US_ASCII);
        }
    }
}
