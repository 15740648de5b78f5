package io.holdfast.zookeeper;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ZooKeeperUriTest {

    @Test
    void hostsPortsBasePathAndTimeoutAreRead() {
        ZooKeeperUri uri = ZooKeeperUri.parse("zookeeper://zk1:2181,zk2,10.0.0.3:2182/apps/locks?connectTimeout=3s&tickTime=500ms");
        assertThat(uri.connectString).isEqualTo("zk1:2181,zk2:2181,10.0.0.3:2182");
        assertThat(uri.basePath).isEqualTo("/apps/locks");
        assertThat(uri.connectTimeout).isEqualTo(Duration.ofSeconds(3));
        assertThat(uri.tickTime).isEqualTo(Duration.ofMillis(500));
        assertThat(uri.digest).isNull();
        assertThat(uri.address).isEqualTo("zk1:2181,zk2:2181,10.0.0.3:2182/apps/locks");
    }

    @Test
    void defaultsAreBaseHolfastAndFiveSeconds() {
        ZooKeeperUri uri = ZooKeeperUri.parse("zookeeper://127.0.0.1");
        assertThat(uri.connectString).isEqualTo("127.0.0.1:2181");
        assertThat(uri.basePath).isEqualTo("/holdfast");
        assertThat(uri.connectTimeout).isEqualTo(Duration.ofSeconds(5));
        assertThat(uri.tickTime).isEqualTo(Duration.ofSeconds(2));
        assertThat(ZooKeeperUri.parse("zookeeper://127.0.0.1:2181/").basePath).isEqualTo("/holdfast");
    }

    @Test
    void credentialsArePercentDecodedAndNeverShown() {
        ZooKeeperUri uri = ZooKeeperUri.parse("zookeeper://ops%2Bteam:p%40ss:word@127.0.0.1:2181/locks");
        assertThat(uri.digest).isEqualTo("ops+team:p@ss:word");
        assertThat(uri.user).isEqualTo("ops+team");
        assertThat(uri.address).doesNotContain("p@ss").isEqualTo("127.0.0.1:2181/locks");
        assertThat(uri.toString()).doesNotContain("p@ss");
        assertThatThrownBy(() -> ZooKeeperUri.parse("zookeeper://ops:secret@127.0.0.1:99999/x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("secret").hasMessageContaining("allowed");
    }

    @Test
    void badUrisSayWhatIsAllowed() {
        for (String bad : List.of("zookeeper://", "zookeeper:///x", "zookeeper://h:0", "zookeeper://h:abc", "zookeeper://h,/x",
                "zookeeper://bad host", "zookeeper://h/a//b", "zookeeper://h/a/../b", "zookeeper://h/zookeeper/x",
                "zookeeper://h?sessionTimeout=10s", "zookeeper://h?connectTimeout=1h", "zookeeper://h?tickTime=5ms", "zookeeper://h?tickTime=2m", "zookeeper://h?connectTimeout=soon",
                "zookeeper://user@h", "zookeeper://h/a b")) {
            assertThatThrownBy(() -> ZooKeeperUri.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("allowed");
        }
        assertThatThrownBy(() -> ZooKeeperUri.parse("zookeeper://h?sessionTimeout=10s")).hasMessageContaining("each hold's session timeout is its lease");
    }

    @Test
    void onlyZookeeperUrisAreAccepted() {
        ZooKeeperLockStoreProvider provider = new ZooKeeperLockStoreProvider();
        assertThat(provider.accepts("zookeeper://h:2181")).isTrue();
        assertThat(provider.accepts("zk://h:2181")).isFalse();
        assertThat(provider.accepts("jdbc:postgresql://h/db")).isFalse();
        assertThat(provider.schemes()).containsExactly("zookeeper://");
    }
}
