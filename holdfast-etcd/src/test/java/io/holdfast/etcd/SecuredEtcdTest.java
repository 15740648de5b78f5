package io.holdfast.etcd;

import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.auth.Permission;
import io.etcd.jetcd.options.OptionsUtil;
import io.grpc.netty.GrpcSslContexts;
import io.holdfast.DistributedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.HoldfastException;
import io.holdfast.LockInfo;
import io.holdfast.StoreUnavailableException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * An etcd member serving TLS only, with authentication on, and etcd's default timing (1 s elections, so
 * its shortest lease is 2 s): {@code etcds://} with a CA file, a user allowed only the lock prefix, a wrong
 * password, a missing CA, and a lease shorter than the cluster keeps.
 */
class SecuredEtcdTest {
    private static final String PREFIX = "secured/locks";
    private static final String USER = "locker";
    private static final String PASSWORD = "s3cr/t+x";
    private static Path dir;
    private static TestCertificates certs;
    private static EtcdCluster etcd;

    @BeforeAll
    static void startSecuredEtcd() throws Exception {
        dir = Files.createTempDirectory("holdfast-etcd-tls-");
        certs = TestCertificates.create(dir);
        etcd = EtcdCluster.start(1, new EtcdCluster.Options(1000, certs.cert(), certs.key()));
        try (Client root = Client.builder().endpoints(etcd.members().get(0).clientUrl())
                .sslContext(GrpcSslContexts.forClient().trustManager(certs.cert().toFile()).build()).build()) {
            Auth auth = root.getAuthClient();
            ByteSequence rootName = EtcdKeys.utf8("root");
            auth.roleAdd(rootName).get(10, TimeUnit.SECONDS);
            auth.userAdd(rootName, EtcdKeys.utf8("root-password")).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(rootName, rootName).get(10, TimeUnit.SECONDS);
            ByteSequence role = EtcdKeys.utf8(USER);
            ByteSequence from = EtcdKeys.utf8(PREFIX + "/");
            auth.roleAdd(role).get(10, TimeUnit.SECONDS);
            auth.roleGrantPermission(role, from, OptionsUtil.prefixEndOf(from), Permission.Type.READWRITE).get(10, TimeUnit.SECONDS);
            auth.userAdd(EtcdKeys.utf8(USER), EtcdKeys.utf8(PASSWORD)).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(EtcdKeys.utf8(USER), role).get(10, TimeUnit.SECONDS);
            auth.authEnable().get(10, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (etcd != null) {
            etcd.close();
        }
        if (certs != null) {
            Files.deleteIfExists(certs.cert());
            Files.deleteIfExists(certs.key());
            Files.deleteIfExists(dir.resolve("server.p12"));
            Files.deleteIfExists(dir);
        }
    }

    private static String uri(String userInfo, boolean withCa) {
        return "etcds://" + (userInfo == null ? "" : userInfo + "@") + etcd.members().get(0).hostPort() + "/" + PREFIX
                + "?connectTimeout=3s" + (withCa ? "&ca=" + certs.cert() : "");
    }

    /** A user whose role covers only the lock prefix acquires, inspects, waits, fences and releases over TLS. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aUserAllowedOnlyTheLockPrefixUsesLocksOverTls() throws Exception {
        String uri = uri(USER + ":s3cr%2Ft%2Bx", true);
        try (Holdfast a = Holdfast.connect(uri); Holdfast b = Holdfast.connect(uri); EtcdFencing fencing = EtcdFencing.open(uri)) {
            assertThat(a.describe()).contains("etcd").contains(etcd.members().get(0).hostPort()).doesNotContain("s3cr");
            Hold hold = a.lock("jobs/nightly").acquire(Duration.ofSeconds(10));
            assertThat(b.lock("jobs/nightly").tryAcquire()).isEmpty();
            LockInfo info = b.admin().status("jobs/nightly").orElseThrow();
            assertThat(info.held()).isTrue();
            assertThat(info.fencingToken()).isEqualTo(hold.fencingToken());
            assertThat(info.leaseRemaining()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
            assertThat(fencing.putIfHeld(hold, PREFIX + "/data/x", "1")).as("fenced write inside the user's prefix").isTrue();
            var waiting = b.lock("jobs/nightly").acquireAsync(Duration.ofSeconds(30));
            hold.close();
            try (Hold next = waiting.get(30, TimeUnit.SECONDS)) {
                assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
            }
        }
    }

    /** A wrong password is refused at connect, with a message that names the store but not the password. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWrongPasswordIsRefusedWithoutShowingIt() {
        Throwable refused = catchThrowable(() -> Holdfast.connect(uri(USER + ":not-the-password", true)).close());
        assertThat(refused).isInstanceOf(HoldfastException.class).isNotInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining(etcd.members().get(0).hostPort()).hasMessageContaining("refused")
                .hasMessageNotContaining("not-the-password");
    }

    /** Without the CA the server's certificate is not trusted: the store is unavailable, and says where. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void withoutTheCaTheServerIsNotTrusted() {
        Throwable untrusted = catchThrowable(() -> Holdfast.connect(uri(USER + ":s3cr%2Ft%2Bx", false)).close());
        assertThat(untrusted).isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining(etcd.members().get(0).hostPort());
    }

    /**
     * This member's shortest lease is 2 s (1.5 election timeouts of 1 s, rounded up): a 1 s hold, whose
     * crashed holder's lock would outlive its lease, is refused with what is allowed; 2 s works.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLeaseShorterThanTheClusterKeepsIsRefused() throws Exception {
        try (Holdfast h = Holdfast.connect(uri(USER + ":s3cr%2Ft%2Bx", true))) {
            DistributedLock tooShort = h.lock("short", Duration.ofSeconds(1), true);
            assertThatThrownBy(() -> tooShort.acquire(Duration.ofSeconds(5))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("allowed: 2s");
            assertThatThrownBy(tooShort::tryAcquire).as("the same, a second time").isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("allowed: 2s");
            try (Hold ok = h.lock("short", Duration.ofSeconds(2), true).acquire(Duration.ofSeconds(5))) {
                assertThat(ok.isValid()).isTrue();
            }
        }
    }
}
