package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContextBuilder;

import javax.net.ssl.SSLException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Builds jetcd clients from {@link EtcdUri}s. */
final class EtcdClients {
    private EtcdClients() {
    }

    /**
     * A jetcd client for {@code uri}: every endpoint, round-robin over the healthy ones (a dead member's
     * calls move to the others), user/password if given, TLS for {@code etcds}.
     */
    static Client build(EtcdUri uri) {
        ClientBuilder builder = Client.builder()
                .endpoints(uri.grpcEndpoints().toArray(String[]::new))
                .connectTimeout(uri.connectTimeout)
                // Notice a silently dead connection (a member frozen or cut off) within a few seconds.
                .keepaliveTime(Duration.ofSeconds(6))
                .keepaliveTimeout(Duration.ofSeconds(3));
        if (uri.user != null) {
            builder.user(ByteSequence.from(uri.user, StandardCharsets.UTF_8))
                    .password(ByteSequence.from(uri.password, StandardCharsets.UTF_8));
        }
        if (uri.tls) {
            try {
                SslContextBuilder ssl = GrpcSslContexts.forClient();
                if (uri.ca != null) {
                    ssl.trustManager(uri.ca.toFile());
                }
                if (uri.cert != null) {
                    ssl.keyManager(uri.cert.toFile(), uri.key.toFile());
                }
                builder.sslContext(ssl.build());
            } catch (SSLException | IllegalArgumentException e) {
                throw new IllegalArgumentException("etcd TLS settings of " + uri.address + " cannot be used: " + e.getMessage()
                        + " (ca: PEM certificates; cert: PEM certificate chain; key: PEM PKCS#8 private key)", e);
            }
        }
        return builder.build();
    }
}
