package io.holdfast.etcd;

import io.etcd.jetcd.Client;
import io.holdfast.spi.LockStore;

import java.time.Duration;
import java.util.Objects;

/**
 * Lock stores on an application's own jetcd {@link Client}, for {@link io.holdfast.Holdfast#builder(LockStore)}:
 *
 * <pre>{@code
 * Holdfast holdfast = Holdfast.of(EtcdLocks.store(etcdClient));
 * }</pre>
 *
 * <p>The store uses the client's KV, Lease and Watch services (its endpoints, credentials and TLS) and its own
 * session leases, watches and keeper thread; it reads once under the prefix to check that etcd answers.
 *
 * <p>Who closes what: closing the {@code Holdfast} client revokes the store's session leases (deleting whatever
 * keys of its holds and queued waits are left), closes its watches and stops its thread; it never closes the jetcd
 * {@code Client}: close that after the Holdfast client.
 */
public final class EtcdLocks {

    private EtcdLocks() {
    }

    /** A store under the key prefix {@code holdfast}, as {@code etcd://host} opens. */
    public static LockStore store(Client client) {
        return builder(client).build();
    }

    /** Settings for a store on {@code client}. */
    public static Builder builder(Client client) {
        return new Builder(client);
    }

    /** Settings for a store on an application's client. Not thread-safe; build once. */
    public static final class Builder {
        private final Client client;
        private String prefix = EtcdUri.DEFAULT_PREFIX;
        private Duration requestTimeout = EtcdUri.DEFAULT_TIMEOUT;

        private Builder(Client client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /** Every key the store writes starts with {@code prefix + "/"}; {@code holdfast} unless set. */
        public Builder prefix(String prefix) {
            this.prefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /** How long one store call (and the first read) may take; 5 s unless set. */
        public Builder requestTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
                throw new IllegalArgumentException("requestTimeout " + timeout + " is out of range; allowed: more than 0 up to 5 minutes");
            }
            this.requestTimeout = timeout;
            return this;
        }

        /**
         * Reads once under the prefix and returns the store.
         *
         * @throws IllegalArgumentException if the prefix is not allowed
         * @throws io.holdfast.StoreUnavailableException if etcd does not answer within the request time-out
         */
        public LockStore build() {
            return new EtcdLockStore(EtcdUri.ofClient(prefix, requestTimeout), client, false);
        }
    }
}
