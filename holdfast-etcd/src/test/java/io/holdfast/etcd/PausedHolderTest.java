package io.holdfast.etcd;

import io.etcd.jetcd.KeyValue;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.testkit.ChildJvm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kleppmann's pause, for real: a holder process checks its hold, is frozen with SIGSTOP past its lease, the
 * lock passes to another client which writes, and the holder is thawed with SIGCONT. The old holder learns it
 * lost the lock, and its late write through {@link EtcdFencing} is rejected by etcd, while the same write
 * without the fencing check overwrites the new holder's data.
 */
class PausedHolderTest {
    private static final String PREFIX = "paused-" + UUID.randomUUID().toString().substring(0, 8);
    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aHolderPausedPastItsLeaseLearnsItLostTheLockAndItsStaleWriteIsFencedOff() throws Exception {
        String uri = etcd.uri(PREFIX, null);
        String name = "orders/42";
        String fencedKey = "data/" + PREFIX + "/stock";
        String plainKey = "data/" + PREFIX + "/stock-unfenced";
        Path go = Files.createTempFile("holdfast-etcd-go-", ".flag");
        Files.delete(go);
        try (Holdfast next = Holdfast.connect(uri);
             EtcdFencing fencing = EtcdFencing.open(uri);
             ChildJvm child = ChildJvm.start(FencedHolderProcess.class, uri, name, "2s", go.toString(), fencedKey, plainKey)) {
            String held = child.awaitLine(l -> l.startsWith(FencedHolderProcess.HELD), Duration.ofSeconds(90));
            long staleToken = Long.parseLong(held.substring(FencedHolderProcess.HELD.length()).trim());
            assertThat(child.awaitLine(l -> l.startsWith(FencedHolderProcess.CHECKED), Duration.ofSeconds(30)))
                    .as("the child's check of its hold before the pause").isEqualTo(FencedHolderProcess.CHECKED + "valid=true");

            signal("STOP", child.pid());
            long pausedAt = System.nanoTime();
            try {
                // The lock frees only once etcd expires the frozen holder's session lease (2 s after its last keep-alive).
                Hold hold = next.lock(name).acquire(Duration.ofSeconds(30));
                long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
                assertThat(hold.fencingToken()).isGreaterThan(staleToken);
                assertThat(waitedMs).as("ms from the pause until another client got the lock (etcd frees it after the lease)")
                        .isGreaterThanOrEqualTo(1_000);
                assertThat(fencing.putIfHeld(hold, fencedKey, "written by token " + hold.fencingToken()))
                        .as("the new holder's fenced write").isTrue();
                fencing.client().getKVClient().put(EtcdKeys.utf8(plainKey), EtcdKeys.utf8("written by token " + hold.fencingToken())).get();
                assertThat(child.isAlive()).isTrue();
                assertThat(child.transcript()).as("child output while frozen").doesNotContain(FencedHolderProcess.LOST);

                signal("CONT", child.pid());
                String lost = child.awaitLine(l -> l.startsWith(FencedHolderProcess.LOST), Duration.ofSeconds(30));
                assertThat(lost).as("the thawed holder's loss report").hasSizeGreaterThan(FencedHolderProcess.LOST.length());

                Files.createFile(go);
                assertThat(child.awaitLine(l -> l.startsWith(FencedHolderProcess.FENCED), Duration.ofSeconds(30)))
                        .as("the stale holder's write through EtcdFencing").isEqualTo(FencedHolderProcess.FENCED + "rejected");
                child.awaitLine(l -> l.startsWith(FencedHolderProcess.PLAIN), Duration.ofSeconds(30));

                assertThat(value(fencing, fencedKey)).as("fenced data after the stale write")
                        .isEqualTo("written by token " + hold.fencingToken());
                assertThat(value(fencing, plainKey)).as("unfenced data after the stale write: the lost update fencing prevents")
                        .isEqualTo("written by token " + staleToken);
                assertThat(hold.isValid()).as("the new holder's hold").isTrue();
                assertThat(fencing.isHeldAtEtcd(hold)).isTrue();
                hold.close();
                assertThat(fencing.isHeldAtEtcd(hold)).as("isHeldAtEtcd after release").isFalse();
                assertThat(fencing.putIfHeld(hold, fencedKey, "after release")).as("a fenced write after release").isFalse();
                System.out.println("paused holder's output:\n" + child.transcript());
            } finally {
                signal("CONT", child.pid()); // never leave it frozen, whatever failed
            }
        } finally {
            Files.deleteIfExists(go);
        }
    }

    private static String value(EtcdFencing fencing, String key) throws Exception {
        List<KeyValue> kvs = fencing.client().getKVClient().get(EtcdKeys.utf8(key)).get(10, TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? null : EtcdKeys.text(kvs.get(0).getValue());
    }

    static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + new String(kill.getInputStream().readAllBytes()));
        }
    }
}
