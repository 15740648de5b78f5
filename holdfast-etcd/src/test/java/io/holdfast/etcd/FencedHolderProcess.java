package io.holdfast.etcd;

import io.holdfast.Durations;
import io.holdfast.Hold;
import io.holdfast.Holdfast;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A holder in a process of its own, for the pause test: takes the lock, checks its hold, then waits for a
 * go-ahead (a file appearing) before writing, the way a holder paused by a GC between its check and its
 * write would. It writes twice: once through {@link EtcdFencing} (rejected if the hold was lost meanwhile),
 * once as a plain put (what a write without a fencing check does).
 *
 * <p>Usage: {@code FencedHolderProcess URI NAME LEASE GO_FILE FENCED_KEY PLAIN_KEY}. Prints {@code HELD <token>},
 * {@code CHECKED valid=<bool>}, {@code LOST <reason>} when told of the loss, then {@code FENCED applied} or
 * {@code FENCED rejected}, and {@code PLAIN applied}. Exits after at most two minutes.
 */
public final class FencedHolderProcess {
    static final String HELD = "HELD ";
    static final String CHECKED = "CHECKED ";
    static final String LOST = "LOST ";
    static final String FENCED = "FENCED ";
    static final String PLAIN = "PLAIN ";

    private FencedHolderProcess() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: FencedHolderProcess URI NAME LEASE GO_FILE FENCED_KEY PLAIN_KEY");
            System.exit(64);
        }
        Path go = Path.of(args[3]);
        try (Holdfast holdfast = Holdfast.connect(args[0]); EtcdFencing fencing = EtcdFencing.open(args[0])) {
            Hold hold = holdfast.lock(args[1], Durations.parse(args[2]), true).acquire(Duration.ofSeconds(60));
            hold.onLost((h, reason) -> say(LOST + reason));
            say(HELD + hold.fencingToken());
            say(CHECKED + "valid=" + hold.isValid());
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (!Files.exists(go)) {
                if (System.nanoTime() > deadline) {
                    say("TIMEOUT waiting for " + go);
                    System.exit(1);
                }
                Thread.sleep(10);
            }
            // No second check here: this is the write that a pause between check and act lets through.
            String stale = "written by token " + hold.fencingToken();
            say(FENCED + (fencing.putIfHeld(hold, args[4], stale) ? "applied" : "rejected"));
            fencing.client().getKVClient().put(EtcdKeys.utf8(args[5]), EtcdKeys.utf8(stale)).get();
            say(PLAIN + "applied");
            try {
                hold.close();
            } catch (RuntimeException e) {
                say("CLOSE " + e.getClass().getSimpleName());
            }
        }
        System.exit(0);
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
