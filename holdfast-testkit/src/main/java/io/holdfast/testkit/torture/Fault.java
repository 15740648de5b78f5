package io.holdfast.testkit.torture;

import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/** The faults the torture harness injects, named on the command line in lower case. */
public enum Fault {
    /** SIGKILL a client process (preferably the one holding the lock) and start a new one in its place. */
    KILL,
    /** SIGSTOP the holder for longer than its lease, then SIGCONT: a stop-the-world GC pause. */
    PAUSE,
    /** Kill the store and start it again; only when a {@link StoreControl} says how. */
    RESTART,
    /** Cut the holder off from the store through its loopback proxy (drop, or delay past the lease), then heal. */
    PARTITION;

    /** The name as written on the command line ({@code kill}, {@code pause}, ...). */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Reads a comma-separated list such as {@code kill,pause,restart,partition}; {@code none} or an empty
     * text is no fault, {@code all} is every fault. Order is kept: the scheduler injects faults in turn.
     *
     * @throws IllegalArgumentException naming the allowed words, for anything else
     */
    public static Set<Fault> parseList(String text) {
        Set<Fault> faults = new LinkedHashSet<>();
        if (text == null || text.isBlank() || text.trim().equalsIgnoreCase("none")) {
            return faults;
        }
        if (text.trim().equalsIgnoreCase("all")) {
            return EnumSet.allOf(Fault.class);
        }
        for (String word : text.split(",")) {
            String w = word.trim().toUpperCase(Locale.ROOT);
            try {
                faults.add(Fault.valueOf(w));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown fault '" + word.trim()
                        + "'; allowed: kill, pause, restart, partition (comma-separated), all, or none");
            }
        }
        return faults;
    }
}
