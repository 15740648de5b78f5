package io.holdfast.zookeeper;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LockNodesTest {

    @Test
    void ownerIdsRoundTripThroughNodeNames() {
        for (String owner : List.of("AbC_-.x.1z", "conformance-retry-9f", "with space/and~tilde%", "ünï")) {
            String node = LockNodes.nodePrefix(owner) + "0000000042";
            assertThat(LockNodes.isQueueNode(node)).as(node).isTrue();
            assertThat(LockNodes.owner(node)).isEqualTo(owner);
            assertThat(LockNodes.sequence(node)).isEqualTo(42);
            assertThat(node.substring(1, node.length() - 11)).doesNotContain("/", "~");
        }
    }

    @Test
    void queueIsOrderedBySequenceAndSkipsSubdirectories() {
        List<String> children = List.of("~b~0000000011", "jobs", "~a~0000000002", "~c~0000000100", "nightly.v2");
        assertThat(LockNodes.queue(children)).containsExactly("~a~0000000002", "~b~0000000011", "~c~0000000100");
        assertThat(LockNodes.subdirectories(children)).containsExactly("jobs", "nightly.v2");
    }

    @Test
    void namesMapToDirectoriesAndBack() {
        assertThat(LockNodes.dir("/holdfast", "orders/42")).isEqualTo("/holdfast/orders/42");
        assertThat(LockNodes.dir("/holdfast", "a/./../b")).isEqualTo("/holdfast/a/%2E/%2E%2E/b");
        assertThat(LockNodes.name("/holdfast", "/holdfast/a/%2E/%2E%2E/b")).isEqualTo("a/./../b");
        assertThat(LockNodes.name("/holdfast", LockNodes.dir("/holdfast", "x.y/.z"))).isEqualTo("x.y/.z");
    }

    @Test
    void dataCarriesHolderLeaseAndSession() {
        byte[] data = LockNodes.data("host:42\nforged=1", 30_000, 40_000);
        assertThat(LockNodes.field(data, "holder")).isEqualTo("host:42 forged=1");
        assertThat(LockNodes.longField(data, "lease", -1)).isEqualTo(30_000);
        assertThat(LockNodes.longField(data, "session", -1)).isEqualTo(40_000);
        assertThat(LockNodes.field(data, "forged")).isNull();
        assertThat(LockNodes.longField(null, "lease", 7)).isEqualTo(7);
    }
}
