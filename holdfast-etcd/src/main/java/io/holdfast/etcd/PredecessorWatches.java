package io.holdfast.etcd;

import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;

import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open watches of a store's waiting owners, one per owner: each on the deletion of the key just before the
 * owner's, as the owner's last refused attempt read it (or, if that attempt did not, as read at registration).
 * That key stays the predecessor until it is deleted (keys created later have higher revisions), so while an
 * owner's watch is open and has not fired, a new registration for the same owner (the core registers again after
 * every refused attempt) joins it without a call to etcd: one watch stream per wait.
 */
final class PredecessorWatches {
    private final Watch watches;
    private final KV kv;
    private final LockKeys keys;
    private final EtcdCalls calls;
    private final Duration timeout;
    private final ConcurrentHashMap<String, PredecessorWatch> open = new ConcurrentHashMap<>();

    PredecessorWatches(Watch watches, KV kv, LockKeys keys, EtcdCalls calls, Duration timeout) {
        this.watches = watches;
        this.kv = kv;
        this.keys = keys;
        this.calls = calls;
        this.timeout = timeout;
    }

    /**
     * Registers {@code onRelease} for {@code ownerId}, waiting on {@code name} with its key {@code mine} (null if the
     * store knows no key of the owner: then there is nothing to watch yet, and the owner's next attempt queues it;
     * the core registers again after that attempt). Runs {@code onRelease} at once if the owner's key is gone or
     * nobody is before it.
     */
    AutoCloseable register(String name, String ownerId, OwnedKey mine, Runnable onRelease) {
        PredecessorWatch current = open.get(ownerId);
        if (current != null && current.name.equals(name) && current.add(onRelease)) {
            return () -> current.remove(onRelease);
        }
        if (mine == null || !mine.name.equals(name)) {
            return () -> { };
        }
        if (mine.isHandedOn()) {
            onRelease.run(); // a release through this store gave it the lock: the next attempt takes it
            return () -> { };
        }
        OwnedKey.Predecessor predecessor = mine.predecessor();
        if (predecessor == null) {
            predecessor = lookUp(name, ownerId, mine);
            if (predecessor == null) {
                onRelease.run(); // our key is gone, or nobody is before it: the next attempt decides at once
                return () -> { };
            }
        }
        PredecessorWatch watch = new PredecessorWatch(ownerId, name, watches, kv, w -> open.remove(w.ownerId, w));
        watch.add(onRelease);
        PredecessorWatch replaced = open.put(ownerId, watch);
        if (replaced != null) {
            replaced.close(); // fired or abandoned; its registrations were told or are being closed
        }
        watch.start(predecessor);
        return () -> watch.remove(onRelease);
    }

    /** Reads, in one transaction, whether {@code mine} still exists and which key is just before it; null if either is missing. */
    private OwnedKey.Predecessor lookUp(String name, String ownerId, OwnedKey mine) {
        TxnResponse r = calls.await(kv.txn()
                .Then(Op.get(mine.key, GetOption.DEFAULT), Op.get(keys.lock(name), LockKeys.before(mine.createRevision)))
                .commit(), timeout, "find the waiter before '" + ownerId + "' on '" + name + "'");
        var ownRead = r.getGetResponses().get(0).getKvs();
        var beforeRead = r.getGetResponses().get(1).getKvs();
        if (ownRead.isEmpty() || ownRead.get(0).getCreateRevision() != mine.createRevision || beforeRead.isEmpty()) {
            return null;
        }
        KeyValue predecessor = beforeRead.get(0);
        return OwnedKey.Predecessor.of(predecessor, r.getHeader().getRevision());
    }

    /** Wakes {@code ownerId}'s waiter now, through its open watch if it has one (closing that watch). */
    void wake(String ownerId) {
        PredecessorWatch w = open.get(ownerId);
        if (w != null) {
            w.fire();
        }
    }

    /** Closes every open watch. */
    void closeAll() {
        for (PredecessorWatch w : new ArrayList<>(open.values())) {
            w.close();
        }
    }
}
