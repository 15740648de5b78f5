package io.holdfast.testkit;

import io.holdfast.Durations;
import io.holdfast.Holdfast;
import io.holdfast.LeaderElection;

import java.io.IOException;
import java.time.Duration;

/**
 * A process that runs for leadership of one name and stays in the race until it is killed: the suite kills it
 * with SIGKILL while it leads, to check that another candidate is elected once its lease runs out.
 *
 * <p>Usage: {@code LeaderProcess URI NAME LEASE}. Prints {@code ELECTED <term>} when elected and
 * {@code REVOKED <term> <reason>} when revoked. Like {@link HolderProcess}, it exits by itself (resigning) when
 * its standard input closes, and in any case after {@link HolderProcess#MAX_LIFETIME}.
 */
public final class LeaderProcess {
    /** Start of the line printed when elected; the term follows. */
    public static final String ELECTED = "ELECTED ";
    /** Start of the line printed when revoked; the term and the reason follow. */
    public static final String REVOKED = "REVOKED ";

    private LeaderProcess() {
    }

    /** Runs for leadership as the arguments say; see the class description. */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: LeaderProcess URI NAME LEASE");
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

        LeaderElection election = holdfast.leader(args[1], lease);
        election.onElected(term -> print(ELECTED + term));
        election.onRevoked((term, reason) -> print(REVOKED + term + " " + reason));
        election.start();
        Thread.sleep(HolderProcess.MAX_LIFETIME.toMillis());
        holdfast.close();
        System.exit(0);
    }

    private static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
