package io.holdfast.etcd;

import io.etcd.jetcd.KV;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One waiting owner's watch on the deletion of its predecessor key, shared by the core's registrations for that
 * owner. It fires once: on the deletion, or on any doubt (a broken watch), and then closes.
 *
 * <p>The watch starts at the member's current revision, not at the revision the predecessor was read at: etcd
 * serves a watch that starts in the past from a catch-up loop that runs every 100 ms (an "unsynced" watcher), and
 * one that starts now at once. A deletion between the read and the watch's start is caught by reading the key
 * again, only if the revision moved meanwhile (the watch's created notification carries the revision it started at).
 */
final class PredecessorWatch {
    final String ownerId;
    final String name;
    private final Watch watches;
    private final KV kv;
    private final Consumer<PredecessorWatch> onClose;
    // Guarded by this.
    private final List<Runnable> listeners = new ArrayList<>();
    private boolean done;
    private Watch.Watcher watcher;

    /** {@code onClose} is told once this watch is over (fired or closed), so its owner can forget it. */
    PredecessorWatch(String ownerId, String name, Watch watches, KV kv, Consumer<PredecessorWatch> onClose) {
        this.ownerId = ownerId;
        this.name = name;
        this.watches = watches;
        this.kv = kv;
        this.onClose = onClose;
    }

    /** Adds a registration; false if this watch already fired or closed. */
    synchronized boolean add(Runnable listener) {
        if (done) {
            return false;
        }
        listeners.add(listener);
        return true;
    }

    /** Removes a registration; the last one closes the watch. */
    void remove(Runnable listener) {
        synchronized (this) {
            listeners.remove(listener);
            if (done || !listeners.isEmpty()) {
                return;
            }
        }
        close();
    }

    void fire() {
        List<Runnable> toTell;
        synchronized (this) {
            if (done) {
                return;
            }
            toTell = new ArrayList<>(listeners);
        }
        close();
        toTell.forEach(Runnable::run);
    }

    void close() {
        Watch.Watcher w;
        synchronized (this) {
            done = true;
            listeners.clear();
            w = watcher;
            watcher = null;
        }
        onClose.accept(this);
        if (w != null) {
            w.close();
        }
    }

    /** Watches the deletion of {@code predecessor}, which was read at revision {@code predecessor.readAt()}. */
    void start(OwnedKey.Predecessor predecessor) {
        Watch.Watcher w = watches.watch(predecessor.key(),
                WatchOption.builder().withNoPut(true).withCreateNotify(true).withRequireLeader(true).build(),
                new Watch.Listener() {
                    @Override
                    public void onNext(WatchResponse response) {
                        if (response.isCreatedNotify()) {
                            if (response.getHeader().getRevision() > predecessor.readAt()) {
                                recheck(predecessor);
                            }
                            return;
                        }
                        for (WatchEvent event : response.getEvents()) {
                            if (event.getEventType() == WatchEvent.EventType.DELETE) {
                                fire();
                                return;
                            }
                        }
                    }

                    @Override
                    public void onError(Throwable error) {
                        // A broken watch may have missed the deletion: let the waiter look for itself.
                        fire();
                    }

                    @Override
                    public void onCompleted() {
                        // Closed by us, or the client is closing: nothing to report.
                    }
                });
        boolean closeNow;
        synchronized (this) {
            closeNow = done;
            if (!done) {
                watcher = w;
            }
        }
        if (closeNow) {
            w.close();
        }
    }

    /** The revision moved between the read and the watch's start: fires if the predecessor went meanwhile. */
    private void recheck(OwnedKey.Predecessor predecessor) {
        kv.get(predecessor.key()).whenComplete((now, error) -> {
            if (error != null || now.getKvs().isEmpty() || now.getKvs().get(0).getCreateRevision() != predecessor.createRevision()) {
                fire();
            }
        });
    }
}
