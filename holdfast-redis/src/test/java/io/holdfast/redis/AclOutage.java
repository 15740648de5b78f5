package io.holdfast.redis;

import io.holdfast.testkit.StoreOutage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * Cuts one client off from a set of Redis servers while the servers and their other clients run on: the
 * client logs in as an ACL user of its own, and the outage disables that user and kills its connections
 * on every server, so reconnects fail authentication until {@link #end()} enables it again. Works where a
 * proxy cannot, for a Cluster client that connects to whatever addresses the cluster announces.
 */
final class AclOutage implements StoreOutage {
    private final List<RedisServer> servers;
    private final String user = "cutoff-" + UUID.randomUUID().toString().substring(0, 8);
    private final String password = UUID.randomUUID().toString();
    private final String uri;

    AclOutage(List<RedisServer> servers, BiFunction<String, String, String> uriForUser) {
        this.servers = servers;
        this.uri = uriForUser.apply(user, password);
        on("ACL", "SETUSER", user, "on", ">" + password, "~*", "&*", "+@all");
    }

    @Override
    public String clientUri() {
        return uri;
    }

    @Override
    public void begin() {
        on("ACL", "SETUSER", user, "off");
        on("CLIENT", "KILL", "USER", user);
    }

    @Override
    public void end() {
        on("ACL", "SETUSER", user, "on");
    }

    @Override
    public void close() {
        on("ACL", "DELUSER", user);
    }

    private void on(String... command) {
        for (RedisServer s : servers) {
            if (!s.isAlive()) {
                continue;
            }
            try {
                Object reply = s.call(command);
                if (reply instanceof String r && r.startsWith("-")) {
                    throw new IllegalStateException(String.join(" ", command[0], command[1]) + " on " + s.address() + ": " + r);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
