package io.holdfast.etcd;

import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.holdfast.spi.HoldRef;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Renewal of a batch of holds of one lease length: one keep-alive of their session lease, plus reads of every
 * renewed key in transactions of at most 128 reads (etcd's default {@code --max-txn-ops}), all sent at once. A
 * hold is renewed if its key exists with the hold's token as create revision on the live session lease, and the
 * store still tracks it. A session lease etcd no longer knows means every key on it is gone.
 */
final class HoldRenewal {
    /** etcd's default {@code --max-txn-ops}. */
    static final int MAX_TXN_OPS = 128;

    private final KV kv;
    private final LockKeys keys;
    private final OwnerSlots slots;
    private final EtcdCalls calls;
    private final SessionLeases sessions;
    private final Duration requestTimeout;
    private final Map<String, OwnedKey> owned;

    /** Renews the keys in {@code owned} (the store's map, by owner id), and forgets those found gone. */
    HoldRenewal(KV kv, LockKeys keys, OwnerSlots slots, EtcdCalls calls, SessionLeases sessions, Duration requestTimeout, Map<String, OwnedKey> owned) {
        this.kv = kv;
        this.keys = keys;
        this.slots = slots;
        this.calls = calls;
        this.sessions = sessions;
        this.requestTimeout = requestTimeout;
        this.owned = owned;
    }

    /** See {@link io.holdfast.spi.LockStore#renew}. */
    Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        if (holds.isEmpty()) {
            return Set.of();
        }
        long start = System.nanoTime();
        SessionLeases.Session session = sessions.current(lease);
        if (session == null) {
            // The session these holds were attached to expired: etcd deleted their keys.
            for (HoldRef ref : holds) {
                owned.remove(ref.ownerId());
            }
            return Set.of();
        }
        Duration timeout = timeout(lease);
        String what = "renew " + holds.size() + " lease(s)";
        // A copy: a time-out here must not cancel the reply for attempts that count on the same keep-alive.
        CompletableFuture<?> keepAlive = sessions.keepAlive(session).reply().copy();
        List<HoldRef> all = new ArrayList<>(holds);
        List<CompletableFuture<TxnResponse>> reads = new ArrayList<>();
        for (int from = 0; from < all.size(); from += MAX_TXN_OPS) {
            List<HoldRef> chunk = all.subList(from, Math.min(all.size(), from + MAX_TXN_OPS));
            Op[] gets = new Op[chunk.size()];
            for (int i = 0; i < gets.length; i++) {
                HoldRef ref = chunk.get(i);
                gets[i] = Op.get(keys.owner(ref.name(), slots.of(ref.name(), ref.ownerId())), GetOption.DEFAULT);
            }
            reads.add(kv.txn().Then(gets).commit());
        }
        boolean alive;
        try {
            calls.await(keepAlive, timeout, what);
            alive = true;
        } catch (RuntimeException e) {
            if (!EtcdCalls.isLeaseNotFound(e.getCause())) {
                throw e;
            }
            sessions.expired(session);
            alive = false;
        }
        Set<String> renewed = new HashSet<>();
        for (int c = 0; c < reads.size(); c++) {
            TxnResponse r = calls.await(reads.get(c), timeout, what);
            if (!alive) {
                continue;
            }
            List<GetResponse> gets = r.getGetResponses();
            for (int i = 0; i < gets.size(); i++) {
                HoldRef ref = all.get(c * MAX_TXN_OPS + i);
                KeyValue key = gets.get(i).getKvs().isEmpty() ? null : gets.get(i).getKvs().get(0);
                // A hold this store no longer tracks (released, or given up by the keeper, which deletes its key
                // in the background) is not renewed, even if this read still found its key.
                OwnedKey o = owned.get(ref.ownerId());
                if (key != null && key.getCreateRevision() == ref.fencingToken() && key.getLease() == session.leaseId
                        && o != null && o.keepUntil(start + lease.toNanos())) {
                    renewed.add(ref.ownerId());
                } else {
                    owned.remove(ref.ownerId()); // gone: force-released, or its session expired
                }
            }
        }
        return renewed;
    }

    /** A renewal waits at most a third of its lease (at least 500 ms), and never longer than any call. */
    private Duration timeout(Duration lease) {
        Duration third = lease.dividedBy(3);
        Duration floor = Duration.ofMillis(500);
        Duration t = third.compareTo(floor) < 0 ? floor : third;
        return t.compareTo(requestTimeout) < 0 ? t : requestTimeout;
    }
}
