package io.holdfast.etcd;

import io.holdfast.spi.LockStore;
import io.holdfast.spi.LockStoreProvider;

import java.util.List;

/**
 * The etcd backend: {@code etcd://[user[:password]@]host[:port][,host[:port]...][/key/prefix]} and
 * {@code etcds://...} for TLS, with the parameters {@code connectTimeout}, {@code requestTimeout}, and for
 * TLS {@code ca}, {@code cert}, {@code key}. See {@link EtcdLockStore} for the algorithm.
 */
public final class EtcdLockStoreProvider implements LockStoreProvider {

    @Override
    public List<String> schemes() {
        return List.of(EtcdUri.PLAIN, EtcdUri.TLS);
    }

    @Override
    public boolean accepts(String uri) {
        return EtcdUri.accepts(uri);
    }

    @Override
    public LockStore open(String uri) {
        return new EtcdLockStore(EtcdUri.parse(uri));
    }
}
