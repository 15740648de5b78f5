package io.holdfast.redis;

import io.holdfast.spi.LockStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;

import java.util.Objects;

/**
 * Lock stores on an application's own Lettuce {@link RedisClient} (one node, or a master found through Sentinel),
 * for {@link io.holdfast.Holdfast#builder(LockStore)}:
 *
 * <pre>{@code
 * Holdfast holdfast = Holdfast.of(RedisLocks.store(redisClient, RedisURI.create("redis://cache:6379")));
 * }</pre>
 *
 * <p>Holdfast opens its own connections from the client (one for commands, one for pub/sub wake-ups after the
 * first wait, one for {@code WAIT} when used): they share the client's event loops and options. Store calls give up
 * after 5 s (7 s with slack) whatever the client's own time-outs. Cluster clients and Redlock are URI-only.
 *
 * <p>Who closes what: closing the {@code Holdfast} client closes the connections Holdfast opened; it never shuts the
 * {@code RedisClient} down: shut it down after the Holdfast client.
 */
public final class RedisLocks {

    private RedisLocks() {
    }

    /** A store on connections from {@code client} to its default URI (the one it was created with). */
    public static LockStore store(RedisClient client) {
        return builder(client).build();
    }

    /** A store on connections from {@code client} to {@code uri}. */
    public static LockStore store(RedisClient client, RedisURI uri) {
        return builder(client).uri(uri).build();
    }

    /** Settings for a store on {@code client}. */
    public static Builder builder(RedisClient client) {
        return new Builder(client);
    }

    /** Settings for a store on an application's client. Not thread-safe; build once. */
    public static final class Builder {
        private final RedisClient client;
        private RedisURI uri;
        private String prefix = RedisTarget.DEFAULT_PREFIX;

        private Builder(RedisClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /** Where to connect; the client's default URI unless set. A Sentinel URI finds the current master. */
        public Builder uri(RedisURI uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            return this;
        }

        /** The key prefix, {@code holdfast:} unless set; clients that share locks use the same prefix. */
        public Builder prefix(String prefix) {
            this.prefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * Opens Holdfast's command connection from the client and returns the store.
         *
         * @throws IllegalArgumentException if the prefix is not allowed
         * @throws io.holdfast.StoreUnavailableException if the connection cannot be opened
         */
        public LockStore build() {
            return RedisLockStore.open(RedisTarget.ofClient(uri, prefix), client);
        }
    }
}
