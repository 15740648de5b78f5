package io.holdfast.etcd;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The URI forms the etcd backend reads, and the messages for those it refuses. */
class EtcdUriTest {

    @Test
    void aBareHostGetsTheDefaultPortPrefixAndTimeouts() {
        EtcdUri u = EtcdUri.parse("etcd://10.0.0.5");
        assertThat(u.tls).isFalse();
        assertThat(u.endpoints).containsExactly("10.0.0.5:2379");
        assertThat(u.prefix).isEqualTo("holdfast");
        assertThat(u.user).isNull();
        assertThat(u.connectTimeout).isEqualTo(Duration.ofSeconds(5));
        assertThat(u.requestTimeout).isEqualTo(Duration.ofSeconds(5));
        assertThat(u.address).isEqualTo("10.0.0.5:2379/holdfast");
        assertThat(u.grpcEndpoints()).containsExactly("http://10.0.0.5:2379");
    }

    @Test
    void severalHostsCredentialsPrefixAndParameters() {
        EtcdUri u = EtcdUri.parse("etcd://app:p%40ss%3Aw@h1:2379,h2:22379,[::1]:32379/myapp/locks/?connectTimeout=2s&requestTimeout=750ms");
        assertThat(u.endpoints).containsExactly("h1:2379", "h2:22379", "[::1]:32379");
        assertThat(u.user).isEqualTo("app");
        assertThat(u.password).isEqualTo("p@ss:w");
        assertThat(u.prefix).isEqualTo("myapp/locks");
        assertThat(u.connectTimeout).isEqualTo(Duration.ofSeconds(2));
        assertThat(u.requestTimeout).isEqualTo(Duration.ofMillis(750));
        assertThat(u.address).isEqualTo("h1:2379,h2:22379,[::1]:32379/myapp/locks").doesNotContain("p@ss");
    }

    @Test
    void etcdsMeansTls() {
        EtcdUri u = EtcdUri.parse("ETCDS://h1:2379");
        assertThat(u.tls).isTrue();
        assertThat(u.grpcEndpoints()).containsExactly("https://h1:2379");
    }

    @Test
    void theProviderAcceptsBothSchemesOnly() {
        EtcdLockStoreProvider provider = new EtcdLockStoreProvider();
        assertThat(provider.schemes()).containsExactly("etcd://", "etcds://");
        assertThat(provider.accepts("etcd://h")).isTrue();
        assertThat(provider.accepts("etcds://h")).isTrue();
        assertThat(provider.accepts("redis://h")).isFalse();
        assertThat(provider.accepts("etcdx://h")).isFalse();
    }

    @Test
    void badUrisAreRefusedWithWhatIsExpectedAndWithoutThePassword() {
        for (String bad : List.of("etcd://", "etcd://h:0", "etcd://h:99999", "etcd://h:abc", "etcd://h1,,h2", "etcd://h/a//b",
                "etcd://h/bad prefix", "etcd://h?timeout=5s", "etcd://h?connectTimeout=forever", "etcd://h?requestTimeout=1ms",
                "etcd://h?ca=/etc/hostname", "etcds://h?cert=/etc/hostname", "etcd://[::1:2379", "etcd://:pw@h")) {
            assertThatThrownBy(() -> EtcdUri.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("expected etcd://");
        }
        assertThatThrownBy(() -> EtcdUri.parse("etcd://u:topsecret@h:1:2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("topsecret");
    }
}
