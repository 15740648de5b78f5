package io.holdfast.testkit.torture;

import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The faults the torture harness injects, named on the command line in lower case with hyphens. The
 * first four work on any store; the others need a cluster topology ({@link Topology}), whose servers and
 * clients each live in their own network namespace.
 */
public enum Fault {
    /** SIGKILL a client process (preferably the one holding the lock) and start a new one in its place. */
    KILL,
    /** SIGSTOP the holder for longer than its lease, then SIGCONT: a stop-the-world GC pause. */
    PAUSE,
    /** Kill the store and start it again; only when a {@link StoreControl} says how (single server). */
    RESTART,
    /** Cut the holder or a waiter off from the store (its loopback proxy, or in a topology its namespace), then heal. */
    PARTITION,
    /** Topology: cut the current leader off from every other server and client, then heal. */
    LEADER_PARTITION,
    /**
     * Topology: cut the holder, together with the follower it talks to, off from the leader, the other
     * follower and the other clients; the holder keeps working (it lingers in its critical section,
     * checking its hold) while the majority side may grant the lock again. Review finding Z1.
     */
    FOLLOWER_PARTITION,
    /**
     * Topology: cut the holder off from a minority of the servers (2 of 5, 1 of 3) while the other clients
     * still reach them all, then heal; on Redlock the holder keeps its majority.
     */
    MINORITY_PARTITION,
    /**
     * Topology: cut the holder off from every server one way only, for 1.5 leases plus half a second, then
     * heal; turn by turn <em>deaf</em> (what the servers send it is dropped: its renewals arrive and are applied,
     * their answers never come back) and <em>mute</em> (what it sends is dropped: the servers hear nothing from
     * it while it still hears them). The holder lingers in its critical section, checking its hold, meanwhile.
     */
    ONE_WAY_PARTITION,
    /** Topology: SIGKILL the current leader and start it again on its data after a second. */
    LEADER_KILL,
    /** Topology: SIGSTOP the current leader for longer than the lease, then SIGCONT. */
    LEADER_PAUSE,
    /** Topology: a slow, lossy link on the leader ({@code tc netem}, or random loss where the kernel has no netem). */
    SLOW_LINK,
    /**
     * Redis topologies: step the leader's wall clock (the Sentinels' master, the master of the lock's slot,
     * Redlock's {@code s1}) two leases ahead while the holder lingers in its critical section, checking its
     * hold; every key the server holds expires at once, as after an NTP step or a VM resumed. After 1.5
     * leases plus half a second the clock is set honest again.
     */
    LEADER_CLOCK_STEP;

    /** The faults that need only one server: kill, pause, restart, partition. */
    public static final Set<Fault> SINGLE_SERVER = Collections.unmodifiableSet(EnumSet.of(KILL, PAUSE, RESTART, PARTITION));

    /**
     * The faults of any cluster topology: every fault but the store restart (leader-kill restarts one server)
     * and the clock step (Redis topologies only).
     */
    public static final Set<Fault> CLUSTER = Collections.unmodifiableSet(EnumSet.complementOf(EnumSet.of(RESTART, LEADER_CLOCK_STEP)));

    /** The name as written on the command line ({@code kill}, {@code leader-partition}, ...). */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Whether the fault needs a cluster topology. */
    public boolean needsTopology() {
        return !SINGLE_SERVER.contains(this);
    }

    /**
     * Reads a comma-separated list such as {@code kill,pause,restart,partition}; {@code none} or an empty
     * text is no fault, {@code all} is every fault (those a run cannot inject are reported as not injected).
     * Order is kept: the scheduler injects faults in turn.
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
            String w = word.trim().toUpperCase(Locale.ROOT).replace('-', '_');
            try {
                faults.add(Fault.valueOf(w));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown fault '" + word.trim() + "'; allowed: "
                        + EnumSet.allOf(Fault.class).stream().map(Fault::label).collect(Collectors.joining(", "))
                        + " (comma-separated), all, or none");
            }
        }
        return faults;
    }
}
