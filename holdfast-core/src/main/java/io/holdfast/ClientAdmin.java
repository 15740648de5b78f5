package io.holdfast;

import java.util.List;
import java.util.Optional;

/** {@link LockAdmin} over a client's store. */
final class ClientAdmin implements LockAdmin {
    private final HoldfastClient client;

    ClientAdmin(HoldfastClient client) {
        this.client = client;
    }

    @Override
    public Optional<LockInfo> status(String name) {
        client.checkOpen();
        return client.store.inspect(LockNames.requireValid(name));
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        client.checkOpen();
        if (prefix == null) {
            prefix = "";
        }
        if (prefix.length() > LockNames.MAX_LENGTH) {
            throw new IllegalArgumentException("prefix is longer than a lock name can be (" + LockNames.MAX_LENGTH + ")");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit " + limit + " is not allowed; allowed: 1 or more");
        }
        return client.store.list(prefix, limit);
    }

    @Override
    public boolean forceRelease(String name) {
        client.checkOpen();
        boolean freed = client.store.forceRelease(LockNames.requireValid(name));
        if (freed) {
            client.signalRelease(name);
        }
        return freed;
    }
}
