package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store built with {@link EtcdLocks} on an application's own jetcd {@link Client} excludes a URI-opened client on
 * the same prefix, its waiter wakes when the other releases, and after the Holdfast client closes the application's
 * client still writes and reads, and no session lease of Holdfast's is left on the server.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class OwnEtcdClientTest {
    private static final String PREFIX = "own-" + UUID.randomUUID().toString().substring(0, 8);
    private static EtcdCluster etcd;

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(1);
    }

    @AfterAll
    static void stopEtcd() {
        if (etcd != null) {
            etcd.close();
        }
    }

    /** The server's lease list, through etcd's JSON gateway ({@code POST /v3/lease/leases}). */
    private static String leases() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + etcd.members().get(0).hostPort() + "/v3/lease/leases"))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString("{}")).build();
        HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    @Test
    void storeOnTheApplicationsClient() throws Exception {
        try (Client app = Client.builder().endpoints("http://" + etcd.members().get(0).hostPort()).build()) {
            Holdfast own = Holdfast.builder(EtcdLocks.builder(app).prefix(PREFIX).build()).holderName("own-client").connect();
            try (Holdfast other = Holdfast.connect(etcd.uri(PREFIX, null))) {
                try (Hold hold = own.lock("job").acquire(Duration.ofSeconds(5))) {
                    assertThat(other.lock("job").tryAcquire()).isEmpty();
                    assertThat(other.admin().status("job").orElseThrow().holder()).isEqualTo("own-client");
                    assertThat(leases()).as("a session lease while held").contains("\"ID\"");
                }
                Hold theirs = other.lock("job").acquire(Duration.ofSeconds(5));
                assertThat(own.lock("job").tryAcquire()).isEmpty();
                CompletableFuture<Hold> waiter = own.lock("job").acquireAsync(Duration.ofSeconds(20));
                theirs.close();
                Hold mine = waiter.get(30, TimeUnit.SECONDS);
                assertThat(mine.fencingToken()).isGreaterThan(theirs.fencingToken());
                mine.close();
            } finally {
                own.close();
            }
            ByteSequence key = ByteSequence.from("app/" + PREFIX, StandardCharsets.UTF_8);
            ByteSequence value = ByteSequence.from("still-works", StandardCharsets.UTF_8);
            app.getKVClient().put(key, value).get(10, TimeUnit.SECONDS);
            assertThat(app.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs().get(0).getValue()).isEqualTo(value);
            assertThat(leases()).as("session leases of both Holdfast clients revoked at close").doesNotContain("\"ID\"");
        }
    }
}
