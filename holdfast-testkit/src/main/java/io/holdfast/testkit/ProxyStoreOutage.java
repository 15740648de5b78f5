package io.holdfast.testkit;

import java.util.function.IntFunction;

/**
 * A {@link StoreOutage} for stores reached over TCP: the client connects through a {@link LoopbackProxy}
 * and the outage cuts the proxy.
 */
public final class ProxyStoreOutage implements StoreOutage {
    private final LoopbackProxy proxy;
    private final String clientUri;

    /**
     * Starts a proxy to {@code targetHost:targetPort}.
     *
     * @param clientUriForPort builds the client URI from the proxy's loopback port, for example
     *        {@code port -> "jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres"}
     */
    public ProxyStoreOutage(String targetHost, int targetPort, IntFunction<String> clientUriForPort) {
        this.proxy = new LoopbackProxy(targetHost, targetPort);
        this.clientUri = clientUriForPort.apply(proxy.port());
    }

    /** The proxy, for its counters. */
    public LoopbackProxy proxy() {
        return proxy;
    }

    @Override
    public String clientUri() {
        return clientUri;
    }

    @Override
    public void begin() {
        proxy.cut();
    }

    @Override
    public void end() {
        proxy.restore();
    }

    @Override
    public void close() {
        proxy.close();
    }

    @Override
    public String toString() {
        return "ProxyStoreOutage[" + proxy + "]";
    }
}
