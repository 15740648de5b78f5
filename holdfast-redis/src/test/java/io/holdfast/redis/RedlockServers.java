package io.holdfast.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** N independent {@code redis-server} masters for Redlock. */
final class RedlockServers implements AutoCloseable {
    final List<RedisServer> masters = new ArrayList<>();

    RedlockServers(int n) {
        try {
            for (int i = 0; i < n; i++) {
                masters.add(RedisServer.start());
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    String hosts() {
        return masters.stream().map(RedisServer::address).collect(Collectors.joining(","));
    }

    /** A {@code redlock://} URI over every master, with {@code params}. */
    String uri(String params) {
        return "redlock://" + hosts() + (params.isEmpty() ? "" : "?" + params);
    }

    @Override
    public void close() {
        masters.forEach(RedisServer::close);
    }
}
