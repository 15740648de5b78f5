package io.holdfast.redis;

import io.holdfast.StoreUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Lettuce connections to one Redis deployment (a node, a Sentinel-watched master, or a Cluster): one
 * multiplexed command connection, opened at once, and one pub/sub connection for wake-ups, opened with
 * the first wait. Commands fail fast while disconnected (Lettuce reconnects in the background), so a
 * store outage surfaces as an error rather than a queue.
 */
final class RedisConnection implements AutoCloseable {
    private static final Object RESOURCES_LOCK = new Object();
    private static ClientResources sharedResources;
    private static int resourceUsers;

    final String backend;
    final String address;
    final boolean cluster;
    final Duration timeout;
    private final RedisURI uri;
    private final AbstractRedisClient client;
    /** False for an application's client: closing shuts down only the connections opened here, not the client. */
    private final boolean owned;
    private final StatefulConnection<String, String> connection;
    final RedisClusterAsyncCommands<String, String> commands;
    // Guarded by this.
    private StatefulRedisPubSubConnection<String, String> pubSub;
    private StatefulRedisConnection<String, String> replicated;
    private boolean closed;

    RedisConnection(String backend, String address, boolean cluster, List<RedisURI> uris, Duration timeout) {
        this.backend = backend;
        this.address = address;
        this.cluster = cluster;
        this.timeout = timeout;
        this.uri = uris.get(0);
        this.owned = true;
        ClientResources resources = acquireResources();
        Duration connectTimeout = timeout.compareTo(Duration.ofSeconds(5)) < 0 ? timeout : Duration.ofSeconds(5);
        SocketOptions socket = SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).tcpNoDelay(true).build();
        TimeoutOptions timeouts = TimeoutOptions.enabled(timeout);
        try {
            if (cluster) {
                RedisClusterClient c = RedisClusterClient.create(resources, uris);
                c.setOptions(ClusterClientOptions.builder()
                        .socketOptions(socket).timeoutOptions(timeouts)
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                                .enableAllAdaptiveRefreshTriggers()
                                .enablePeriodicRefresh(Duration.ofSeconds(30))
                                .build())
                        .build());
                client = c;
            } else {
                RedisClient c = RedisClient.create(resources);
                c.setOptions(ClientOptions.builder()
                        .socketOptions(socket).timeoutOptions(timeouts)
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                        .build());
                client = c;
            }
        } catch (RuntimeException e) {
            releaseResources();
            throw e;
        }
        try {
            if (cluster) {
                StatefulRedisClusterConnection<String, String> c = ((RedisClusterClient) client).connect(StringCodec.UTF8);
                connection = c;
                commands = c.async();
            } else {
                StatefulRedisConnection<String, String> c = ((RedisClient) client).connect(StringCodec.UTF8, uris.get(0));
                connection = c;
                commands = c.async();
            }
        } catch (RuntimeException e) {
            shutdown();
            throw new StoreUnavailableException(backend, address, "cannot connect: " + Errors.rootMessage(e), e);
        }
    }

    /**
     * Connections opened from an application's standalone (or Sentinel) client, with that client's options; to
     * {@code uri}, or to the client's default URI if null. {@link #close} closes them and leaves the client running.
     */
    RedisConnection(String backend, String address, RedisClient appClient, RedisURI uri, Duration timeout) {
        this.backend = backend;
        this.address = address;
        this.cluster = false;
        this.timeout = timeout;
        this.uri = uri;
        this.owned = false;
        this.client = appClient;
        try {
            StatefulRedisConnection<String, String> c = uri == null ? appClient.connect(StringCodec.UTF8) : appClient.connect(StringCodec.UTF8, uri);
            connection = c;
            commands = c.async();
        } catch (RuntimeException e) {
            throw new StoreUnavailableException(backend, address, "cannot connect: " + Errors.rootMessage(e), e);
        }
    }

    /** The pub/sub connection, opened on first use. */
    synchronized StatefulRedisPubSubConnection<String, String> pubSub() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (pubSub == null) {
            try {
                if (cluster) {
                    StatefulRedisClusterPubSubConnection<String, String> c = ((RedisClusterClient) client).connectPubSub(StringCodec.UTF8);
                    c.setNodeMessagePropagation(true);
                    pubSub = c;
                } else {
                    pubSub = uri == null ? ((RedisClient) client).connectPubSub(StringCodec.UTF8)
                            : ((RedisClient) client).connectPubSub(StringCodec.UTF8, uri);
                }
            } catch (RuntimeException e) {
                throw new StoreUnavailableException(backend, address, "cannot open the pub/sub connection: " + Errors.rootMessage(e), e);
            }
        }
        return pubSub;
    }

    /**
     * A second command connection for writes followed by {@code WAIT}, which blocks its connection until
     * the replicas acknowledge; kept apart so the shared connection never stalls behind it.
     */
    synchronized StatefulRedisConnection<String, String> replicated() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (replicated == null) {
            try {
                replicated = uri == null ? ((RedisClient) client).connect(StringCodec.UTF8)
                        : ((RedisClient) client).connect(StringCodec.UTF8, uri);
            } catch (RuntimeException e) {
                throw new StoreUnavailableException(backend, address, "cannot connect: " + Errors.rootMessage(e), e);
            }
        }
        return replicated;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        shutdown();
    }

    private void shutdown() {
        if (!owned) {
            List<StatefulConnection<String, String>> opened;
            synchronized (this) {
                opened = new java.util.ArrayList<>(java.util.Arrays.asList(connection, pubSub, replicated));
            }
            for (StatefulConnection<String, String> c : opened) {
                if (c != null) {
                    try {
                        c.close();
                    } catch (RuntimeException e) {
                        // closing; the application's client goes on
                    }
                }
            }
            return;
        }
        try {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        } finally {
            releaseResources();
        }
    }

    private static ClientResources acquireResources() {
        synchronized (RESOURCES_LOCK) {
            if (sharedResources == null) {
                sharedResources = DefaultClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2).build();
            }
            resourceUsers++;
            return sharedResources;
        }
    }

    private static void releaseResources() {
        ClientResources done = null;
        synchronized (RESOURCES_LOCK) {
            if (--resourceUsers == 0) {
                done = sharedResources;
                sharedResources = null;
            }
        }
        if (done != null) {
            done.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
