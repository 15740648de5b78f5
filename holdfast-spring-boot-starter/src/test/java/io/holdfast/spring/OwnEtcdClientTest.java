package io.holdfast.spring;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without holdfast.uri, the Holdfast bean is built on the application's jetcd Client bean, against a real etcd; the
 * client is the application's (closed by its own bean, after Holdfast's) and keeps working.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class OwnEtcdClientTest {
    private static ServerProcess etcd;

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = ServerProcess.etcd();
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void onTheApplicationsJetcdClient() {
        String endpoint = "http://127.0.0.1:" + etcd.port;
        Runners.starter().withBean(Client.class, () -> Client.builder().endpoints(endpoint).build(), bean -> bean.setDestroyMethodName("close"))
                .run(context -> {
                    Holdfast holdfast = context.getBean(Holdfast.class);
                    assertThat(holdfast.describe()).startsWith("etcd ");
                    try (Holdfast other = Holdfast.connect("etcd://127.0.0.1:" + etcd.port);
                         Hold hold = holdfast.lock("own-etcd").acquire(Duration.ofSeconds(5))) {
                        assertThat(other.lock("own-etcd").tryAcquire()).as("held through the application's client").isEmpty();
                        assertThat(other.admin().status("own-etcd").orElseThrow().fencingToken()).isEqualTo(hold.fencingToken());
                    }
                    Client app = context.getBean(Client.class);
                    ByteSequence key = ByteSequence.from("app-key", StandardCharsets.UTF_8);
                    app.getKVClient().put(key, ByteSequence.from("still-works", StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
                    assertThat(app.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs()).hasSize(1);
                });
    }
}
