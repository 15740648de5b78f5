package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;

/**
 * A key the store created for one owner: queued, or holding the lock. It also remembers the key just before it
 * (its predecessor in the queue) as the owner's last refused attempt found it, so that the waiter's watch needs
 * no second read.
 */
final class OwnedKey {
    final String name;
    final ByteSequence key;
    final long createRevision;
    final long leaseId;
    volatile boolean held;
    /** The predecessor the last refused attempt read, or null if that attempt did not read it. */
    private volatile Predecessor predecessor;
    /** The revision of the release through this store that left this key the lock's lowest, 0 if none (see {@link Releases}). */
    private volatile long handedOnAt;
    /** While held: until when (System.nanoTime) the owner renewed it; the keeper deletes it after. Guarded by this. */
    private long keepUntilNanos;
    /** The keeper gave it up: no renewal may report it renewed any more. Guarded by this. */
    private boolean reaped;

    /** The key just before an owner's key, as read at revision {@code readAt}. */
    record Predecessor(ByteSequence key, long createRevision, long readAt) {
        static Predecessor of(KeyValue kv, long readAt) {
            return new Predecessor(kv.getKey(), kv.getCreateRevision(), readAt);
        }
    }

    OwnedKey(String name, ByteSequence key, long createRevision, long leaseId) {
        this.name = name;
        this.key = key;
        this.createRevision = createRevision;
        this.leaseId = leaseId;
    }

    Predecessor predecessor() {
        return predecessor;
    }

    void predecessor(Predecessor p) {
        predecessor = p;
    }

    /** A release through this store read, at {@code revision}, that this key was then the lock's lowest. */
    void handedOn(long revision) {
        handedOnAt = revision;
    }

    /** Whether a release handed the lock on to this key and its owner's attempt has not taken it yet. */
    boolean isHandedOn() {
        return handedOnAt != 0;
    }

    /** The revision at which a release handed the lock on to this key, 0 if none; forgets it. */
    long takeHandedOnAt() {
        long r = handedOnAt;
        handedOnAt = 0;
        return r;
    }

    /** Marks it held, kept until {@code untilNanos} unless renewed. */
    void holdUntil(long untilNanos) {
        keepUntil(untilNanos);
        held = true;
    }

    /** Keeps the hold until {@code untilNanos}; false if the keeper has already given it up. */
    synchronized boolean keepUntil(long untilNanos) {
        if (reaped) {
            return false;
        }
        keepUntilNanos = untilNanos;
        return true;
    }

    /** Gives up a hold not renewed by {@code nowNanos}; true if this call did (the caller deletes its key). */
    synchronized boolean reapIfUnrenewed(long nowNanos) {
        if (!held || reaped || nowNanos - keepUntilNanos <= 0) {
            return false;
        }
        reaped = true;
        return true;
    }
}
