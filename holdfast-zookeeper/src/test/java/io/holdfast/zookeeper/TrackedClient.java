package io.holdfast.zookeeper;

import io.holdfast.Holdfast;

import java.util.HashSet;
import java.util.Set;

/** A Holdfast client together with the ZooKeeper store it opened, so a test can reach its sessions. */
record TrackedClient(Holdfast holdfast, ZooKeeperLockStore store) implements AutoCloseable {

    /** Connects to {@code uri} and finds the store the connection opened. */
    static synchronized TrackedClient connect(String uri) {
        Set<ZooKeeperLockStore> before = new HashSet<>(ZooKeeperLockStore.OPEN);
        Holdfast holdfast = Holdfast.connect(uri);
        Set<ZooKeeperLockStore> opened = new HashSet<>(ZooKeeperLockStore.OPEN);
        opened.removeAll(before);
        if (opened.size() != 1) {
            holdfast.close();
            throw new IllegalStateException("expected one new ZooKeeper store for " + uri + ", found " + opened.size()
                    + " (tests that track stores must connect one client at a time)");
        }
        return new TrackedClient(holdfast, opened.iterator().next());
    }

    @Override
    public void close() {
        holdfast.close();
    }
}
