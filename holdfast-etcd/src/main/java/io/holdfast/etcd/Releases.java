package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import io.holdfast.StoreUnavailableException;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The store's releases (see {@link EtcdLockStore#release}). A hold's release is one transaction that deletes the
 * owner's key if it is still the one the hold created, and records its token. If another owner of the same store
 * is on the lock, the transaction also reads the lock's lowest key after the delete: if that key is one of this
 * store's queued owners, the lock is that owner's as of the transaction's revision (its key exists and nobody is
 * before it, read in the transaction that freed the lock), so the store wakes it at once and its next attempt
 * takes the lock from that read, with no wait for its watch and no read of its own ({@link OwnedKey#handedOnAt}).
 */
final class Releases {
    private final KV kv;
    private final LockKeys keys;
    private final OwnerSlots slots;
    private final EtcdCalls calls;
    private final Duration timeout;
    private final Map<String, OwnedKey> owned;
    private final BackgroundDeletes deletes;
    private final PredecessorWatches watches;
    /** Releases that may hand a lock on, by lock name, until they have (or have not); at most one per name at a time. */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> handingOn = new ConcurrentHashMap<>();

    Releases(KV kv, LockKeys keys, OwnerSlots slots, EtcdCalls calls, Duration timeout, Map<String, OwnedKey> owned,
             BackgroundDeletes deletes, PredecessorWatches watches) {
        this.kv = kv;
        this.keys = keys;
        this.slots = slots;
        this.calls = calls;
        this.timeout = timeout;
        this.owned = owned;
        this.deletes = deletes;
        this.watches = watches;
    }

    /** See {@link io.holdfast.spi.LockStore#release}. */
    boolean release(String name, String ownerId) {
        OwnerSlots.Ended slot = slots.end(name, ownerId);
        ByteSequence own = keys.owner(name, slot.suffix());
        String what = "release '" + name + "'";
        deletes.cancel(own); // this call deletes the key itself, or hands it back below
        OwnedKey o = owned.remove(ownerId);
        boolean held = o != null && o.held;
        // Another owner of this store is on the lock: read who holds it next, in the same transaction.
        boolean handOn = held && slots.anyOn(name);
        CompletableFuture<Void> handedOn = new CompletableFuture<>();
        if (handOn) {
            handingOn.put(name, handedOn);
        }
        try {
            return release(name, own, slot, o, held, handOn, what);
        } finally {
            if (handOn) {
                handingOn.remove(name, handedOn);
                handedOn.complete(null);
            }
        }
    }

    private boolean release(String name, ByteSequence own, OwnerSlots.Ended slot, OwnedKey o, boolean held, boolean handOn,
                            String what) {
        CompletableFuture<TxnResponse> txn;
        if (held) {
            // The key this hold created was the lock's lowest, and stays so while it exists: deleting it frees the
            // lock. Any other key of this owner (there should be none) goes too.
            Op delete = Op.delete(own, DeleteOption.DEFAULT);
            Op record = Op.put(keys.lastToken(name), LockKeys.token(o.createRevision), PutOption.DEFAULT);
            txn = kv.txn()
                    .If(new Cmp(own, Cmp.Op.EQUAL, CmpTarget.createRevision(o.createRevision)))
                    .Then(handOn ? new Op[] {delete, record, Op.get(keys.lock(name), LockKeys.LOWEST)} : new Op[] {delete, record})
                    .Else(delete)
                    .commit();
        } else {
            // Queued, or an owner this store did not see acquire: read whether it holds the lock as it goes.
            txn = kv.txn()
                    .If(new Cmp(own, Cmp.Op.GREATER, CmpTarget.createRevision(0)))
                    .Then(Op.get(keys.lock(name), LockKeys.LOWEST), Op.delete(own, DeleteOption.DEFAULT))
                    .commit();
        }
        TxnResponse r;
        try {
            r = calls.await(txn, timeout, what);
        } catch (StoreUnavailableException e) {
            // The key must not outlive the owner's interest in it (nothing else deletes a queued key while the
            // session lives): it is deleted in the background once the cluster answers again.
            deletes.afterFailedRelease(own, o == null ? 0L : o.createRevision, held ? name : null);
            throw e; // the slot stays taken: its key may still exist
        }
        slots.free(slot); // the key is gone: deleted now, or before
        if (held) {
            if (handOn && r.isSucceeded()) {
                handOn(name, first(r), r.getHeader().getRevision());
            }
            return r.isSucceeded();
        }
        if (!r.isSucceeded()) {
            return false; // already gone
        }
        KeyValue head = first(r);
        boolean wasHolder = head != null && head.getKey().equals(own);
        if (wasHolder) {
            // Released for an owner this store did not see acquire (a retry from elsewhere): record its token
            // now, unless a later release already recorded a newer one.
            ByteSequence last = keys.lastToken(name);
            calls.await(kv.txn().If(new Cmp(last, Cmp.Op.LESS, CmpTarget.modRevision(r.getHeader().getRevision() + 1)))
                    .Then(Op.put(last, LockKeys.token(head.getCreateRevision()), PutOption.DEFAULT)).commit(), timeout, what);
        }
        return wasHolder;
    }

    /**
     * The revision at which a release through this store handed lock {@code name} on to {@code mine} (0 if none), once
     * such a release in flight has finished: the waiter's watch may report the release's delete before the release's
     * own reply arrives, and waiting for that reply is cheaper than a read.
     */
    long handedOnAt(String name, OwnedKey mine) {
        CompletableFuture<Void> inFlight = handingOn.get(name);
        if (inFlight != null) {
            try {
                inFlight.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // not answered in time: the attempt reads for itself
            }
        }
        return mine.takeHandedOnAt();
    }

    /**
     * {@code head} is the lock's lowest key right after the release at {@code revision}: if it is the key of one of
     * this store's queued owners, as that owner created it (same create revision, same session lease), the lock is
     * that owner's; tell it.
     */
    private void handOn(String name, KeyValue head, long revision) {
        if (head == null) {
            return;
        }
        String ownerId = slots.ownerOf(name, keys.ownerOf(head.getKey()));
        OwnedKey next = ownerId == null ? null : owned.get(ownerId);
        if (next == null || next.held || !next.name.equals(name) || !next.key.equals(head.getKey())
                || next.createRevision != head.getCreateRevision() || next.leaseId != head.getLease()) {
            return;
        }
        next.handedOn(revision);
        watches.wake(ownerId);
    }

    private static KeyValue first(TxnResponse r) {
        var gets = r.getGetResponses();
        return gets.isEmpty() || gets.get(0).getKvs().isEmpty() ? null : gets.get(0).getKvs().get(0);
    }
}
