package io.holdfast.zookeeper;

import io.holdfast.spi.LockStore;
import io.holdfast.spi.LockStoreProvider;

import java.util.List;

/**
 * The ZooKeeper backend: {@code zookeeper://[user:password@]host[:port][,host[:port]...][/base/path]}
 * with the optional parameter {@code connectTimeout} (default 5s). Locks live under the base path
 * (default {@code /holdfast}); with credentials, every node Holdfast creates is readable and writable
 * only by that digest user.
 */
public final class ZooKeeperLockStoreProvider implements LockStoreProvider {

    @Override
    public List<String> schemes() {
        return List.of(ZooKeeperUri.SCHEME);
    }

    @Override
    public boolean accepts(String uri) {
        return ZooKeeperUri.accepts(uri);
    }

    /**
     * Opens a store and its first session.
     *
     * @throws IllegalArgumentException if the URI is malformed, saying what is allowed
     * @throws io.holdfast.StoreUnavailableException if no server of the ensemble answers within the connect timeout
     */
    @Override
    public LockStore open(String uri) {
        return new ZooKeeperLockStore(ZooKeeperUri.parse(uri));
    }
}
