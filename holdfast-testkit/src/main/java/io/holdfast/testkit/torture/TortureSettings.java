package io.holdfast.testkit.torture;

import io.holdfast.DistributedSemaphore;
import io.holdfast.Durations;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one torture run does. Build with {@link #builder(String)}; every setting but the store URI has a
 * default.
 *
 * @param uri the lock store, any URI a backend on the class path accepts
 * @param registerUrl JDBC URL of the database that holds the shared registers, or null for a SQLite
 *        file in the report directory
 * @param clients how many client processes (1 to 32)
 * @param duration how long the clients run, from the moment all of them are ready
 * @param faults the faults to inject, in turn
 * @param reportDir where histories, logs and the reports go (created if missing)
 * @param lease the lease of every hold (renewed while held); pauses and partitions last longer than it
 * @param think the longest pause between reading the registers and writing them (random up to it)
 * @param acquireWait how long a client waits for the lock before it records a timeout and tries again
 * @param seed seeds the clients' pauses and the scheduler's choices
 * @param clientJvmOptions extra options for the client JVMs (for example {@code -Xmx64m})
 * @param restartDowntime how long a restarted store stays down between its kill and its start (0 to 60 s)
 * @param topology the cluster the runner builds and tortures ({@code uri} is then its label), or null for the
 *        store at {@code uri}
 * @param threads threads sharing one Holdfast client in every other client process (clients 1, 3, 5...; the
 *        others run one thread, so both shapes run side by side); 1 to 16, 1 for single-threaded clients only
 * @param permits 1: the clients take the lock; 2 to {@link DistributedSemaphore#MAX_PERMITS}: each round takes one permit of
 *        a semaphore of that many instead, and the checker allows that many valid holds at once, not more
 * @param recipe what a round takes: the lock (or a permit, with {@code permits}), a read or the write of a read-write
 *        lock, or the leadership of an election (see {@link Recipe})
 * @param clockSkews clients whose wall clock is off by a fixed offset (client number to offset, whole seconds,
 *        up to a day either way): they run under libfaketime ({@code ClockSkew}), every incarnation; their
 *        monotonic clock stays honest, and the histories keep the run's time line. Empty for none
 */
public record TortureSettings(String uri, String registerUrl, int clients, Duration duration, Set<Fault> faults,
                              Path reportDir, Duration lease, Duration think, Duration acquireWait, long seed,
                              List<String> clientJvmOptions, Duration restartDowntime, Topology topology, int threads,
                              int permits, Map<Integer, Duration> clockSkews, Recipe recipe) {

    /** What a client takes each round, and so which exclusion the checker holds the run to. */
    public enum Recipe {
        /** The lock, or one permit of a semaphore ({@link #permits()} above 1): at most that many holds at once. */
        LOCK,
        /** A read (two in three rounds) or the write of a read-write lock: never a writer with anyone. */
        READ_WRITE,
        /** The leadership of {@code holdfast.leader(name)}, resigned at the round's end: one leader at a time, one per term. */
        LEADER
    }

    /** Checks every setting and says what is allowed. */
    public TortureSettings {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(reportDir, "reportDir");
        if (clients < 1 || clients > 32) {
            throw new IllegalArgumentException("clients " + clients + " is not allowed; allowed: 1 to 32");
        }
        if (duration == null || duration.compareTo(Duration.ofSeconds(1)) < 0 || duration.compareTo(Duration.ofDays(7)) > 0) {
            throw new IllegalArgumentException("duration " + (duration == null ? "null" : Durations.format(duration))
                    + " is not allowed; allowed: 1s to 7d");
        }
        Durations.requireLease(lease);
        if (think == null || think.isNegative() || think.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new IllegalArgumentException("think " + think + " is not allowed; allowed: 0 to 10s");
        }
        Durations.requireWait(acquireWait);
        faults = Collections.unmodifiableSet(new LinkedHashSet<>(Objects.requireNonNull(faults, "faults")));
        clientJvmOptions = List.copyOf(clientJvmOptions);
        if (restartDowntime == null || restartDowntime.isNegative() || restartDowntime.compareTo(Duration.ofSeconds(60)) > 0) {
            throw new IllegalArgumentException("restart downtime " + restartDowntime + " is not allowed; allowed: 0 to 60s");
        }
        if (threads < 1 || threads > 16) {
            throw new IllegalArgumentException("threads " + threads + " is not allowed; allowed: 1 to 16");
        }
        Objects.requireNonNull(recipe, "recipe");
        if (recipe != Recipe.LOCK && permits != 1) {
            throw new IllegalArgumentException("permits " + permits + " is not allowed with " + recipe + "; allowed: permits only "
                    + "with the lock (a read-write lock has 16, an election one leader)");
        }
        if (permits < 1 || permits > DistributedSemaphore.MAX_PERMITS) {
            throw new IllegalArgumentException("permits " + permits + " is not allowed; allowed: 1 (the lock) to "
                    + DistributedSemaphore.MAX_PERMITS + " (a semaphore)");
        }
        clockSkews = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(clockSkews, "clockSkews")));
        for (Map.Entry<Integer, Duration> e : clockSkews.entrySet()) {
            Duration d = e.getValue();
            if (e.getKey() < 1 || e.getKey() > clients || d == null || d.isZero() || d.toNanos() % 1_000_000_000L != 0
                    || d.abs().compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException("clock skew " + e.getKey() + ":" + d + " is not allowed; allowed: a client number from 1 to "
                        + clients + " and a nonzero offset in whole seconds, at most a day either way");
            }
        }
        if (topology != null && registerUrl != null) {
            throw new IllegalArgumentException("a register database (" + registerUrl + ") is not allowed with a topology: the clients "
                    + "run in network namespaces that reach only the cluster; allowed: the default SQLite register");
        }
    }

    /** Whether holds of different clients may be in force at once by design (permits, a read-write lock's reads). */
    public boolean sharedHolds() {
        return permits > 1 || recipe == Recipe.READ_WRITE;
    }

    /** Threads of client process {@code client}: {@link #threads()} for odd clients, 1 for even ones. */
    public int threadsOf(int client) {
        return client % 2 == 1 ? threads : 1;
    }

    /** Settings for a run against {@code uri}, with defaults for everything else. */
    public static Builder builder(String uri) {
        return new Builder(uri, null);
    }

    /** Settings for a run against a cluster the runner builds, with defaults for everything else (faults: {@link Topology#defaultFaults()}). */
    public static Builder builder(Topology topology) {
        return new Builder(topology.label(), topology).faults(topology.defaultFaults());
    }

    /** Builds {@link TortureSettings}; not thread-safe. */
    public static final class Builder {
        private final String uri;
        private String registerUrl;
        private int clients = 4;
        private Duration duration = Duration.ofSeconds(30);
        private final Topology topology;
        private Set<Fault> faults = new LinkedHashSet<>(Fault.SINGLE_SERVER);
        private int threads = 1;
        private int permits = 1;
        private Recipe recipe = Recipe.LOCK;
        private Path reportDir = Path.of("torture-report");
        private Duration lease = Duration.ofSeconds(2);
        private Duration think = Duration.ofMillis(60);
        private Duration acquireWait = Duration.ofSeconds(5);
        private long seed = System.nanoTime();
        private List<String> clientJvmOptions = List.of();
        private Duration restartDowntime = Duration.ofSeconds(1);
        private final Map<Integer, Duration> clockSkews = new TreeMap<>();

        private Builder(String uri, Topology topology) {
            this.uri = uri;
            this.topology = topology;
        }

        /** Threads sharing one client in every other client process; default 1. */
        public Builder threads(int n) {
            this.threads = n;
            return this;
        }

        /** Permits of the semaphore the clients take one of each round; default 1: the lock itself. */
        public Builder permits(int n) {
            this.permits = n;
            return this;
        }

        /** What a round takes; default {@link Recipe#LOCK}. */
        public Builder recipe(Recipe r) {
            this.recipe = r;
            return this;
        }

        /** JDBC URL of the register database; default: a SQLite file in the report directory. */
        public Builder registerUrl(String url) {
            this.registerUrl = url;
            return this;
        }

        /** Client processes; default 4. */
        public Builder clients(int n) {
            this.clients = n;
            return this;
        }

        /** How long the clients run; default 30 s. */
        public Builder duration(Duration d) {
            this.duration = d;
            return this;
        }

        /** Faults to inject in turn; default {@link Fault#SINGLE_SERVER}, or {@link Topology#defaultFaults()} for a topology. */
        public Builder faults(Set<Fault> f) {
            this.faults = new LinkedHashSet<>(f);
            return this;
        }

        /** Where the report goes; default {@code ./torture-report}. */
        public Builder reportDir(Path dir) {
            this.reportDir = dir;
            return this;
        }

        /** Lease of every hold; default 2 s. */
        public Builder lease(Duration l) {
            this.lease = l;
            return this;
        }

        /** Longest pause between read and write; default 60 ms. */
        public Builder think(Duration t) {
            this.think = t;
            return this;
        }

        /** How long a client waits for the lock per attempt; default 5 s. */
        public Builder acquireWait(Duration w) {
            this.acquireWait = w;
            return this;
        }

        /** Seed of the random choices; default from the clock. */
        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        /** Extra client JVM options. */
        public Builder clientJvmOptions(List<String> options) {
            this.clientJvmOptions = List.copyOf(options);
            return this;
        }

        /**
         * How long the store stays down in a restart fault; default 1 s. Zero restarts it at once, so a store
         * that forgets its data on restart can grant the lock again while the old holder is still at work.
         */
        public Builder restartDowntime(Duration d) {
            this.restartDowntime = d;
            return this;
        }

        /**
         * Runs client {@code client} (every incarnation of it) with its wall clock {@code offset} ahead (negative:
         * behind), through libfaketime; its monotonic clock stays honest. None by default.
         */
        public Builder clockSkew(int client, Duration offset) {
            this.clockSkews.put(client, offset);
            return this;
        }

        /** @throws IllegalArgumentException if a setting is out of range, saying what is allowed */
        public TortureSettings build() {
            return new TortureSettings(uri, registerUrl, clients, duration, faults, reportDir, lease, think, acquireWait,
                    seed, clientJvmOptions, restartDowntime, topology, threads, permits, clockSkews, recipe);
        }
    }
}
