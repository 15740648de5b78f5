package io.holdfast;

import io.holdfast.spi.LockStore;
import io.holdfast.spi.LockStoreProvider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;

/** Settings for a {@link Holdfast} client. Not thread-safe; build once. */
public final class HoldfastBuilder {
    private final String uri;
    private final LockStore store;
    /** Null: 30 s, or the store's longest lease if it keeps none that long. */
    private Duration defaultLease;
    private String holderName = Holders.localHolder();
    private final List<LockListener> listeners = new ArrayList<>();

    HoldfastBuilder(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
        this.store = null;
    }

    HoldfastBuilder(LockStore store) {
        this.uri = null;
        this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Lease of holds taken through {@link Holdfast#lock(String)}. Unless set: 30 seconds, or the store's longest
     * lease if it keeps none that long (a ZooKeeper ensemble whose {@code maxSessionTimeout} is shorter).
     *
     * @throws IllegalArgumentException if the lease is outside the core's range; {@link #connect()} also refuses
     *         a lease the store cannot keep
     */
    public HoldfastBuilder defaultLease(Duration lease) {
        this.defaultLease = Durations.requireLease(lease);
        return this;
    }

    /**
     * How holds of this client describe their holder to operators ({@code holdfast status}); by default
     * {@code host:pid}. At most 200 characters.
     */
    public HoldfastBuilder holderName(String name) {
        Objects.requireNonNull(name, "holderName");
        String allowed = "; allowed: 1 to 200 characters, not all blank";
        if (name.isBlank()) {
            throw new IllegalArgumentException("holder name is " + (name.isEmpty() ? "empty" : "blank") + allowed);
        }
        if (name.length() > 200) {
            throw new IllegalArgumentException("holder name is " + name.length() + " characters long" + allowed);
        }
        this.holderName = name;
        return this;
    }

    /**
     * Adds a listener told of every acquire, release, loss and failed renewal of the client's locks (metrics,
     * logs); may be called several times, and listeners are told in the order they were added. See
     * {@link LockListener} for what is guaranteed; {@code holdfast-micrometer}'s {@code HoldfastMetrics} is one.
     */
    public HoldfastBuilder listener(LockListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * Opens the store (or, for {@link Holdfast#builder(LockStore)}, takes the given one) and returns the client.
     *
     * @throws IllegalArgumentException if no backend on the class path accepts the URI, or if the store cannot keep
     *         the {@link #defaultLease} set (a store this call opened is closed again)
     * @throws StoreUnavailableException if the store cannot be reached
     */
    public Holdfast connect() {
        if (store != null) {
            return new HoldfastClient(store, defaultLease, holderName, listeners);
        }
        List<String> accepted = new ArrayList<>();
        // Lazily: providers are instantiated in turn until one accepts; each is light (see LockStoreProvider), and only
        // the accepting one's open() loads its client library.
        for (LockStoreProvider provider : ServiceLoader.load(LockStoreProvider.class, HoldfastBuilder.class.getClassLoader())) {
            if (provider.accepts(uri)) {
                LockStore opened = provider.open(uri);
                try {
                    return new HoldfastClient(opened, defaultLease, holderName, listeners);
                } catch (RuntimeException e) {
                    try {
                        opened.close();
                    } catch (RuntimeException closing) {
                        e.addSuppressed(closing);
                    }
                    throw e;
                }
            }
            accepted.addAll(provider.schemes());
        }
        List<String> missing = new ArrayList<>();
        MODULES.forEach((module, scheme) -> {
            if (!accepted.contains(scheme)) {
                missing.add(module);
            }
        });
        throw new IllegalArgumentException("no Holdfast backend accepts '" + Uris.redact(uri) + "'; "
                + (accepted.isEmpty() ? "no backend module is on the class path"
                   : "URIs may start with " + String.join(", ", accepted))
                + (missing.isEmpty() ? "" : " (add " + String.join(", ", missing) + " for other stores)"));
    }

    /** Each backend module, by one scheme it registers; only modules absent from the class path are suggested. */
    private static final java.util.Map<String, String> MODULES = new java.util.LinkedHashMap<>();

    static {
        MODULES.put("holdfast-jdbc", "sqlite:");
        MODULES.put("holdfast-redis", "redis://");
        MODULES.put("holdfast-zookeeper", "zookeeper://");
        MODULES.put("holdfast-etcd", "etcd://");
        MODULES.put("holdfast-memcached", "memcached://");
    }
}
