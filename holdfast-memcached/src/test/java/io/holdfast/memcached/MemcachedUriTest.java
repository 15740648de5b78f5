package io.holdfast.memcached;

import io.holdfast.Holdfast;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The URI forms, and bad URIs refused with what is allowed (no server needed). */
class MemcachedUriTest {

    @Test
    void serversPortsAndParameters() {
        MemcachedUri one = MemcachedUri.parse("memcached://cache.example");
        assertThat(one.servers).containsExactly(InetSocketAddress.createUnresolved("cache.example", 11211));
        assertThat(one.prefix).isEqualTo("holdfast:");
        assertThat(one.timeout).isEqualTo(Duration.ofSeconds(1));
        assertThat(one.connectTimeout).isEqualTo(Duration.ofSeconds(2));
        assertThat(one.maxPoll).isEqualTo(Duration.ofMillis(100));
        assertThat(one.address).isEqualTo("cache.example:11211");

        MemcachedUri many = MemcachedUri.parse("memcached://10.0.0.1:11211,10.0.0.2:11311,[::1]:11411/?prefix=app:locks:&timeout=500ms&connectTimeout=3s&maxPoll=1s");
        assertThat(many.servers).containsExactly(InetSocketAddress.createUnresolved("10.0.0.1", 11211),
                InetSocketAddress.createUnresolved("10.0.0.2", 11311), InetSocketAddress.createUnresolved("::1", 11411));
        assertThat(many.address).isEqualTo("10.0.0.1:11211,10.0.0.2:11311,[::1]:11411");
        assertThat(many.prefix).isEqualTo("app:locks:");
        assertThat(many.timeout).isEqualTo(Duration.ofMillis(500));
        assertThat(many.connectTimeout).isEqualTo(Duration.ofSeconds(3));
        assertThat(many.maxPoll).isEqualTo(Duration.ofSeconds(1));
        assertThat(MemcachedUri.accepts("MEMCACHED://x")).isTrue();
        assertThat(MemcachedUri.accepts("redis://x")).isFalse();
    }

    @Test
    void badUrisSayWhatIsAllowed() {
        List<String> bad = List.of("memcached://", "memcached://host:0", "memcached://host:port", "memcached://a,,b",
                "memcached://host/db", "memcached://user:pw@host", "memcached://host?prefix=a b", "memcached://host?prefix=" + "p".repeat(41),
                "memcached://host?timeout=10ms", "memcached://host?maxPoll=1ms", "memcached://host?retries=3", "memcached://h:1,h:1", "memcached://ho_st");
        for (String uri : bad) {
            assertThatThrownBy(() -> MemcachedUri.parse(uri)).as(uri).isInstanceOf(IllegalArgumentException.class)
                    .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("allowed", "expected"));
        }
        assertThatThrownBy(() -> Holdfast.connect("memcached://host?retries=3")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowed: prefix, timeout, connectTimeout, maxPoll");
    }

    @Test
    void keysOfANameShareItsServerAndFitMemcachedsLimit() {
        LockKeys keys = new LockKeys("p".repeat(MemcachedUri.MAX_PREFIX));
        String name = "n".repeat(200);
        assertThat(keys.token(name).length()).isLessThanOrEqualTo(250);
        assertThat(keys.hashPart(keys.lock(name))).isEqualTo(name);
        assertThat(keys.hashPart(keys.token(name))).isEqualTo(name);
        assertThat(keys.nameOfLock(keys.lock("a/b"))).isEqualTo("a/b");
        assertThat(keys.nameOfLock(keys.token("a/b"))).isNull();
        assertThat(MetaProbe.percentDecode("holdfast%3Alock%3Aa%2Fb%2B1")).isEqualTo("holdfast:lock:a/b+1");
    }

    @Test
    void lockValuesRoundTripAndForeignValuesReadAsUnknownOwners() {
        LockValue v = new LockValue(42, 30_000, "owner.1", "host:123 | with bars");
        assertThat(LockValue.decode(v.encode().getBytes(java.nio.charset.StandardCharsets.UTF_8))).isEqualTo(v);
        LockValue foreign = LockValue.decode("hello".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(foreign.ownerId()).isEqualTo(LockValue.UNREADABLE);
        assertThat(foreign.ownedBy("owner.1")).isFalse();
    }

    @Test
    void aMisspeltParameterIsRefusedNamingTheUriAndWhatItResembles() {
        assertThatThrownBy(() -> MemcachedUri.parse("memcached://127.0.0.1:11211?prefx=svc:"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Memcached URI 'memcached://127.0.0.1:11211?prefx=svc:' is not valid: parameter 'prefx' is unknown "
                        + "(did you mean prefix?); allowed: prefix, timeout, connectTimeout, maxPoll");
        assertThatThrownBy(() -> MemcachedUri.parse("memcached://127.0.0.1:11211?Prefix=svc:")).hasMessageContaining("did you mean prefix?");
    }
}
