package io.holdfast.zookeeper;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockTimeoutException;
import org.apache.zookeeper.server.command.FourLetterCommands;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Review finding Z10: a waiter that gives up leaves no watch on its predecessor on the server (it
 * would otherwise stay there until the holder releases), and no queue node.
 */
class WatchCleanupTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWaiterThatGivesUpLeavesNoWatchOnTheServer() throws Exception {
        String before = System.getProperty("zookeeper.4lw.commands.whitelist");
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
        FourLetterCommands.resetWhiteList(); // read once per JVM, at the first four-letter word
        try (TestingServer server = TestEnsembles.single();
             Holdfast a = Holdfast.connect("zookeeper://127.0.0.1:" + server.getPort() + "/watch-cleanup");
             Holdfast b = Holdfast.connect("zookeeper://127.0.0.1:" + server.getPort() + "/watch-cleanup")) {
            String name = "watch-cleanup/" + UUID.randomUUID();
            try (Hold held = a.lock(name).acquire(Duration.ofSeconds(10))) {
                CompletableFuture<Hold> waiter = b.lock(name).acquireAsync(Duration.ofSeconds(3));
                assertThat(awaitWatches(server.getPort(), name, true)).as("server-side watch of the waiting B").contains(name);
                assertThatThrownBy(() -> waiter.get(20, TimeUnit.SECONDS)).as("B's wait on a held lock").hasCauseInstanceOf(LockTimeoutException.class);
                String watches = awaitWatches(server.getPort(), name, false);
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
            FourLetterCommands.resetWhiteList();
        }
    }

    /** The server's watches by path ({@code wchp}) once they do (or do not) mention {@code name}, or after 5 s. */
    private static String awaitWatches(int port, String name, boolean present) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        String watches;
        do {
            watches = fourLetterWord(port, "wchp");
            assertThat(watches).as("wchp answered").doesNotContain("not executed");
            if (watches.contains(name) == present) {
                return watches;
            }
            Thread.sleep(50);
        } while (System.nanoTime() < deadline);
        return watches;
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
