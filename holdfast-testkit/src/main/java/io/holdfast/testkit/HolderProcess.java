package io.holdfast.testkit;

import io.holdfast.Durations;
import io.holdfast.Hold;
import io.holdfast.Holdfast;

import java.io.IOException;
import java.time.Duration;

/**
 * A process that takes one lock and keeps it, renewing its lease, until it is killed: the suite kills it
 * with SIGKILL to check that a crashed holder's lock frees within its lease.
 *
 * <p>Usage: {@code HolderProcess URI NAME LEASE} (LEASE as {@code 2s}, {@code 500ms}, ...). Prints
 * {@code HELD <token>} once it holds the lock, {@code LOST <reason>} if it loses it. It exits by itself
 * (releasing the lock) when its standard input closes, that is when the parent process is gone, and in
 * any case after {@link #MAX_LIFETIME}, so a forgotten child never holds a lock for long.
 */
public final class HolderProcess {
    /** Start of the line printed once the lock is held; the fencing token follows. */
    public static final String HELD = "HELD ";
    /** Start of the line printed if the hold is lost. */
    public static final String LOST = "LOST ";
    /** The longest a holder process lives. */
    public static final Duration MAX_LIFETIME = Duration.ofMinutes(5);
    private static final Duration ACQUIRE_WAIT = Duration.ofSeconds(60);

    private HolderProcess() {
    }

    /** Takes the lock named by the arguments and holds it; see the class description. */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: HolderProcess URI NAME LEASE");
            System.exit(64);
        }
        Duration lease = Durations.parse(args[2]);
        Holdfast holdfast = Holdfast.connect(args[0]);
        Thread parentWatch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the parent writes nothing; wait for end of input
                }
            } catch (IOException e) {
                // treat as end of input
            }
            holdfast.close();
            System.exit(0);
        }, "parent-watch");
        parentWatch.setDaemon(true);
        parentWatch.start();

        Hold hold = holdfast.lock(args[1], lease, true).acquire(ACQUIRE_WAIT);
        hold.onLost((h, reason) -> {
            System.out.println(LOST + reason);
            System.out.flush();
        });
        System.out.println(HELD + hold.fencingToken());
        System.out.flush();
        Thread.sleep(MAX_LIFETIME.toMillis());
        holdfast.close();
        System.exit(0);
    }
}
