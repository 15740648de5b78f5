package io.holdfast.micrometer;

import io.holdfast.LockListener;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Records a Holdfast client's locks in a Micrometer {@link MeterRegistry}. Register it on the client:
 *
 * <pre>{@code
 * Holdfast holdfast = Holdfast.builder(uri).listener(new HoldfastMetrics(registry, "postgresql")).connect();
 * }</pre>
 *
 * <p>Meters, each tagged {@code backend} (as given) and {@code group} (the lock name's group, below):
 * <ul>
 *   <li>timer {@code holdfast.lock.wait}, tag {@code outcome} = {@code acquired}, {@code timed_out},
 *       {@code busy} (a refused {@code tryAcquire()}), {@code abandoned} or {@code failed}: from an acquire's call to its end;</li>
 *   <li>timer {@code holdfast.lock.held}, tag {@code end} = {@code released} or {@code lost}: from a grant to its
 *       release or loss (a re-entered hold counts once, with its first);</li>
 *   <li>counters {@code holdfast.lock.acquired}, {@code holdfast.lock.timeouts} (waits that ran out),
 *       {@code holdfast.lock.busy} (refused {@code tryAcquire()} calls, which did not wait), {@code holdfast.lock.failures} (the store failed), {@code holdfast.lock.lost} and
 *       {@code holdfast.lock.renewal.failures} (failed renewal rounds of a hold);</li>
 *   <li>gauges {@code holdfast.lock.holds} (holds in force now) and {@code holdfast.lock.waiters} (acquires in
 *       progress now).</li>
 * </ul>
 *
 * <p>Groups are bounded, so that lock names built from ids ({@code orders/42}) cannot make a meter per lock: a
 * name's group is, by default, its part before the first {@code '/'} or {@code ':'} ({@code orders/42} and
 * {@code orders:42} are in {@code orders}), or the whole name if it has neither or starts with one. The first
 * {@value #MAX_GROUPS} distinct groups get meters of their own; every later one is recorded as {@value #OTHER}.
 * So one listener registers at most {@value #MAX_GROUPS} + 1 groups of meters, gauges included, however many names
 * it sees; groups are never removed while it lives.
 *
 * <p>Thread-safe; one instance per client (two clients on one registry need different {@code backend} values, or
 * their meters merge). Each event costs a map lookup and an atomic update, plus a meter registration the first
 * time a group is seen.
 */
public final class HoldfastMetrics implements LockListener {
    /** Distinct groups with meters of their own; names in any later group are recorded as {@value #OTHER}. */
    public static final int MAX_GROUPS = 100;
    /** The group of every name whose group came after the first {@value #MAX_GROUPS}. */
    public static final String OTHER = "other";

    private final MeterRegistry registry;
    private final String backend;
    private final Function<String, String> nameGroup;
    private final Map<String, GroupMeters> groups = new ConcurrentHashMap<>();
    /** Written under {@code groups}, the first time a group is refused; read anywhere. */
    private volatile GroupMeters other;

    /**
     * Metrics of a client on {@code backend} (the tag value, for example {@code postgresql} or {@code redis}),
     * grouping lock names by {@link #defaultGroup(String)}.
     *
     * @throws IllegalArgumentException if {@code backend} is blank
     */
    public HoldfastMetrics(MeterRegistry registry, String backend) {
        this(registry, backend, HoldfastMetrics::defaultGroup);
    }

    /**
     * Metrics of a client on {@code backend}, grouping lock names by {@code nameGroup}: a function of the name
     * alone, returning the group's tag value (a null or blank result counts as {@value #OTHER}). Still at most
     * {@value #MAX_GROUPS} groups get meters of their own, whatever it returns.
     *
     * @throws IllegalArgumentException if {@code backend} is blank
     */
    public HoldfastMetrics(MeterRegistry registry, String backend, Function<String, String> nameGroup) {
        this.registry = Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(backend, "backend");
        if (backend.isBlank()) {
            throw new IllegalArgumentException("backend is blank; allowed: a name for the store, such as postgresql or redis");
        }
        this.backend = backend;
        this.nameGroup = Objects.requireNonNull(nameGroup, "nameGroup");
    }

    /**
     * The default group of a lock name: its part before the first {@code '/'} or {@code ':'}, or the whole name if
     * it has neither or starts with one ({@code orders/42} and {@code orders:42:lines} give {@code orders};
     * {@code nightly-backup} gives itself).
     */
    public static String defaultGroup(String lockName) {
        for (int i = 0; i < lockName.length(); i++) {
            char c = lockName.charAt(i);
            if (c == '/' || c == ':') {
                return i == 0 ? lockName : lockName.substring(0, i);
            }
        }
        return lockName;
    }

    @Override
    public void acquireStarted(String lockName) {
        meters(lockName).acquireStarted();
    }

    @Override
    public void acquireEnded(String lockName, AcquireOutcome outcome, Duration waited, long token) {
        meters(lockName).acquireEnded(outcome, waited);
    }

    @Override
    public void released(String lockName, long token, Duration held) {
        meters(lockName).released(held);
    }

    @Override
    public void lost(String lockName, long token, Duration held, String reason) {
        meters(lockName).lost(held);
    }

    @Override
    public void renewalFailed(String lockName, long token, Throwable error) {
        meters(lockName).renewalFailed();
    }

    /**
     * The meters of a name's group. A name maps to the same meters at every event, so that a hold's grant and its
     * release move one gauge: a group is never removed, and a group refused once (the cap reached) is refused
     * for good.
     */
    private GroupMeters meters(String lockName) {
        String group = nameGroup.apply(lockName);
        if (group == null || group.isBlank()) {
            group = OTHER;
        }
        GroupMeters meters = groups.get(group);
        if (meters != null) {
            return meters;
        }
        GroupMeters full = other;
        return full != null && groups.size() >= MAX_GROUPS ? full : register(group); // the cap never lifts
    }

    private GroupMeters register(String group) {
        synchronized (groups) {
            GroupMeters meters = groups.get(group);
            if (meters != null) {
                return meters;
            }
            if (groups.size() < MAX_GROUPS && !group.equals(OTHER)) {
                meters = new GroupMeters(registry, backend, group);
                groups.put(group, meters);
                return meters;
            }
            if (other == null) {
                other = new GroupMeters(registry, backend, OTHER);
            }
            return other;
        }
    }

    @Override
    public String toString() {
        return "HoldfastMetrics[" + backend + ", " + groups.size() + " group(s)" + (other == null ? "" : " and " + OTHER) + "]";
    }
}
