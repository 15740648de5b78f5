package io.holdfast.etcd;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's own etcd member and a plain jetcd client on it (to look at keys and leases behind the store's
 * back), started before the class's first test and stopped after its last: {@code @RegisterExtension static final
 * OneEtcdMember ETCD = new OneEtcdMember();}.
 */
final class OneEtcdMember implements BeforeAllCallback, AfterAllCallback {
    private EtcdCluster cluster;
    private Client raw;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        cluster = EtcdCluster.start(1);
        raw = Client.builder().endpoints(cluster.members().get(0).clientUrl()).build();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (raw != null) {
            raw.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    EtcdCluster cluster() {
        return cluster;
    }

    /** The plain jetcd client on the member. */
    Client raw() {
        return raw;
    }
}
