package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;

import java.nio.charset.StandardCharsets;

/** Test helpers for etcd keys and values. */
final class EtcdKeys {
    private EtcdKeys() {
    }

    static ByteSequence utf8(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    static String text(ByteSequence b) {
        return b.toString(StandardCharsets.UTF_8);
    }
}
