package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseTimeToLiveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import io.holdfast.LockInfo;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The operators' side of the store: {@code inspect}, {@code list} and {@code forceRelease}. A lock's holder is
 * the key under its prefix with the lowest create revision; a free lock's last token is in {@code PREFIX/NAME}.
 */
final class LockInspection {
    private static final int LIST_PAGE = 500;

    private final KV kv;
    private final Lease leaseClient;
    private final LockKeys keys;
    private final EtcdCalls calls;
    private final Duration timeout;

    LockInspection(KV kv, Lease leaseClient, LockKeys keys, EtcdCalls calls, Duration timeout) {
        this.kv = kv;
        this.leaseClient = leaseClient;
        this.keys = keys;
        this.calls = calls;
        this.timeout = timeout;
    }

    Optional<LockInfo> inspect(String name) {
        TxnResponse r = calls.await(kv.txn().Then(Op.get(keys.lock(name), LockKeys.LOWEST), Op.get(keys.lastToken(name), GetOption.DEFAULT))
                .commit(), timeout, "inspect '" + name + "'");
        KeyValue head = first(r.getGetResponses().get(0));
        if (head == null) {
            KeyValue last = first(r.getGetResponses().get(1));
            // Free. etcd has no record of a lock nobody ever released through Holdfast.
            return last == null ? Optional.empty()
                    : Optional.of(new LockInfo(name, false, null, null, parseToken(last), null));
        }
        Map<Long, Duration> remaining = leaseRemaining(List.of(head.getLease()));
        return Optional.of(info(name, head, remaining));
    }

    private static long parseToken(KeyValue last) {
        try {
            return Long.parseLong(last.getValue().toString(StandardCharsets.UTF_8));
        } catch (NumberFormatException e) {
            return 0;
        }
    }


    List<LockInfo> list(String prefix, int limit) {
        // Keys sort by lock name first, so the locks come in name order; a lock's holder is its lowest
        // create revision, whichever of its keys that is.
        Map<String, KeyValue> holders = new LinkedHashMap<>();
        ByteSequence start = keys.namesStartingWith(prefix);
        ByteSequence end = io.etcd.jetcd.options.OptionsUtil.prefixEndOf(start);
        boolean more = true;
        String last = null;
        while (more) {
            GetResponse page = calls.await(kv.get(start, GetOption.builder().withRange(end).withLimit(LIST_PAGE).build()),
                    timeout, "list locks");
            for (KeyValue k : page.getKvs()) {
                String name = keys.nameOf(k.getKey());
                if (name == null || !name.startsWith(prefix)) {
                    continue;
                }
                if (!name.equals(last) && holders.size() == limit) {
                    more = false; // every key of the last wanted lock has been seen
                    break;
                }
                last = name;
                KeyValue current = holders.get(name);
                if (current == null || k.getCreateRevision() < current.getCreateRevision()) {
                    holders.put(name, k);
                }
            }
            if (more && page.isMore() && !page.getKvs().isEmpty()) {
                ByteSequence lastKey = page.getKvs().get(page.getKvs().size() - 1).getKey();
                start = lastKey.concat(ByteSequence.from(new byte[] {0}));
            } else {
                more = false;
            }
        }
        List<Long> leases = new ArrayList<>();
        for (KeyValue k : holders.values()) {
            leases.add(k.getLease());
        }
        Map<Long, Duration> remaining = leaseRemaining(leases);
        List<LockInfo> out = new ArrayList<>();
        for (Map.Entry<String, KeyValue> e : holders.entrySet()) {
            out.add(info(e.getKey(), e.getValue(), remaining));
        }
        return out;
    }


    boolean forceRelease(String name) {
        String what = "force-release '" + name + "'";
        GetResponse r = calls.await(kv.get(keys.lock(name), LockKeys.LOWEST), timeout, what);
        KeyValue head = first(r);
        if (head == null) {
            return false;
        }
        TxnResponse deleted = calls.await(kv.txn()
                .If(new Cmp(head.getKey(), Cmp.Op.EQUAL, CmpTarget.createRevision(head.getCreateRevision())))
                .Then(Op.delete(head.getKey(), DeleteOption.DEFAULT),
                        Op.put(keys.lastToken(name), LockKeys.token(head.getCreateRevision()), PutOption.DEFAULT))
                .commit(), timeout, what);
        return deleted.isSucceeded();
    }

    private LockInfo info(String name, KeyValue head, Map<Long, Duration> remaining) {
        Duration left = remaining.get(head.getLease());
        String owner = keys.ownerOf(head.getKey());
        if (left == null) {
            // Its lease is already gone: etcd is deleting the key; the lock is free.
            return new LockInfo(name, false, null, null, head.getCreateRevision(), null);
        }
        return new LockInfo(name, true, head.getValue().toString(StandardCharsets.UTF_8), owner, head.getCreateRevision(), left);
    }

    /**
     * Time left on each lease, by the etcd leader's clock; a lease that no longer exists is absent. etcd
     * reports whole seconds, rounded down, so this reports the upper end of that second (never more than
     * the lease's granted TTL): a lease that exists has a moment left even when etcd says 0.
     */
    private Map<Long, Duration> leaseRemaining(List<Long> leaseIds) {
        Map<Long, CompletableFuture<LeaseTimeToLiveResponse>> asked = new HashMap<>();
        for (Long id : leaseIds) {
            if (id != 0 && !asked.containsKey(id)) {
                asked.put(id, leaseClient.timeToLive(id, LeaseOption.DEFAULT));
            }
        }
        Map<Long, Duration> out = new HashMap<>();
        for (Map.Entry<Long, CompletableFuture<LeaseTimeToLiveResponse>> e : asked.entrySet()) {
            LeaseTimeToLiveResponse ttl = calls.await(e.getValue(), timeout, "read a lease's time to live");
            if (ttl.getTTL() >= 0 && ttl.getGrantedTTL() > 0) {
                out.put(e.getKey(), Duration.ofSeconds(Math.min(ttl.getTTL() + 1, ttl.getGrantedTTL())));
            }
        }
        return out;
    }

    private static KeyValue first(GetResponse r) {
        return r.getKvs().isEmpty() ? null : r.getKvs().get(0);
    }
}
