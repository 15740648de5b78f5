package io.holdfast.spring;

import io.holdfast.redis.RedisLocks;
import io.holdfast.spi.LockStore;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** A store on the application's Spring Data Redis Lettuce connection factory. */
final class LettuceStores {
    private LettuceStores() {
    }

    /**
     * A store on the factory's native Lettuce {@link RedisClient} and its default URI (the factory's host, port,
     * credentials, database and TLS, or its Sentinel master). Cluster factories are refused: Holdfast's store on an
     * application's client speaks to one node (or a Sentinel master); a cluster needs a {@code redis-cluster://} URI.
     *
     * @throws HoldfastConfigurationException for a cluster factory, or a client without a default URI
     */
    static LockStore onLettuce(LettuceConnectionFactory factory) {
        String useUri = "Set holdfast.uri to open a Redis store of Holdfast's own (redis-cluster://host:port,... for a cluster), "
                + "or define a Holdfast bean.";
        if (factory.isClusterAware()) {
            throw new HoldfastConfigurationException("The application's LettuceConnectionFactory is in Redis Cluster mode; Holdfast "
                    + "builds a store on an application's Lettuce client only for one node or a Sentinel-managed master.", useUri);
        }
        if (!factory.isRunning()) {
            factory.start(); // created with early startup off: the client exists only once started
        }
        AbstractRedisClient client = factory.getRequiredNativeClient();
        if (!(client instanceof RedisClient redis)) {
            throw new HoldfastConfigurationException("The application's LettuceConnectionFactory has a "
                    + client.getClass().getSimpleName() + "; Holdfast builds a store only on a RedisClient.", useUri);
        }
        try {
            return RedisLocks.store(redis);
        } catch (IllegalArgumentException e) {
            throw new HoldfastConfigurationException("Holdfast cannot open its connection from the application's "
                    + "LettuceConnectionFactory (a static master/replica factory has no one node to connect to): " + e.getMessage(), useUri, e);
        }
    }
}
