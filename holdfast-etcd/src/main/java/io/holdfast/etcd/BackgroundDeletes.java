package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Every delete the store issues on its own, without an owner asking for it now. Each one reads the owner's key
 * first and then deletes it only {@code If(createRevision == R && modRevision == M)}, with {@code R} and
 * {@code M} as that read found them (and {@code R} equal to the revision the store knew, when it knew one).
 * A failed or unanswered delete is tried again, at most once a second, until etcd answers it.
 *
 * <p>What keeps them from deleting a key an owner wants: {@link #cancel} (called by every attempt of the owner
 * before it is sent) drops the owner's delete, and a delete already read or sent cannot land on the key the
 * attempt then adopts, because the attempt <em>writes</em> the key when {@code cancel} found a delete (a put
 * changes the key's mod revision, so the guard fails) and a delete decides only if it was not cancelled once
 * its read has returned (a read that saw the attempt's put returns after the cancel). The three kinds in the background
 * ({@link #deleteStaleNow} is the only other delete the store makes on its own, inside an owner's attempt):
 * <ul>
 *   <li>{@link #afterFailedRelease}: a release that got no answer; the owner is finished with the key (the
 *       core never attempts again for an owner it released), but the key must not outlive its interest.</li>
 *   <li>{@link #unrenewed}: a held key its owner stopped renewing (a hold taken without renewal, or one the
 *       core gave up), after {@code last renewal's send time + lease}; the core's deadline passed earlier.</li>
 *   <li>{@link #inDoubt}: a key an unanswered attempt may have created, after that attempt's send time + lease,
 *       if the owner neither attempted again nor was released. A safety net: the core gives back every owner
 *       it abandons.</li>
 * </ul>
 * Thread-safe; {@link #run} is the keeper's, and never blocks.
 */
final class BackgroundDeletes {
    private static final Logger log = LoggerFactory.getLogger(BackgroundDeletes.class);
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final KV kv;
    private final LockKeys keys;
    private final EtcdCalls calls;
    private final Duration timeout;
    private final ConcurrentHashMap<ByteSequence, Task> tasks = new ConcurrentHashMap<>();

    /** One key to delete. */
    private static final class Task {
        final long createRevision;
        final String heldName;
        volatile long notBeforeNanos;
        volatile boolean inFlight;
        // Guarded by this.
        boolean cancelled;

        Task(long createRevision, String heldName, long notBeforeNanos) {
            this.createRevision = createRevision;
            this.heldName = heldName;
            this.notBeforeNanos = notBeforeNanos;
        }
    }

    BackgroundDeletes(KV kv, LockKeys keys, EtcdCalls calls, Duration timeout) {
        this.kv = kv;
        this.keys = keys;
        this.calls = calls;
        this.timeout = timeout;
    }

    /**
     * Deletes, now and in the caller's thread, an owner's key that its own attempt found on another session's
     * lease (a store elsewhere using the same owner id), so that the attempt can queue again on its own session.
     * Guard: the key's create revision is still {@code createRevision}, as that attempt read it.
     *
     * @return true if this call deleted it
     */
    boolean deleteStaleNow(ByteSequence key, long createRevision, String what) {
        TxnResponse r = calls.await(kv.txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(createRevision)))
                .Then(Op.delete(key, DeleteOption.DEFAULT))
                .commit(), timeout, what);
        return r.isSucceeded();
    }

    /**
     * Deletes {@code key} from now on, because its owner's release got no answer. Guard: the key's create
     * revision is {@code createRevision} (or, if 0, whatever the read finds), and its mod revision is unchanged
     * since the read; {@code heldName}, if not null, also records the token as the lock's last.
     */
    void afterFailedRelease(ByteSequence key, long createRevision, String heldName) {
        schedule(key, new Task(createRevision, heldName, System.nanoTime()));
    }

    /** Deletes the held key {@code key} of {@code name} now, and records its token. Guard: as for a failed release. */
    void unrenewed(ByteSequence key, long createRevision, String name) {
        schedule(key, new Task(createRevision, name, System.nanoTime()));
    }

    /** Deletes {@code key} once {@code afterNanos} (System.nanoTime) has passed. Guard: as for a failed release. */
    void inDoubt(ByteSequence key, long afterNanos) {
        schedule(key, new Task(0, null, afterNanos));
    }

    private void schedule(ByteSequence key, Task task) {
        Task replaced = tasks.put(key, task);
        if (replaced != null) {
            synchronized (replaced) {
                replaced.cancelled = true;
            }
        }
    }

    /**
     * Drops any delete of {@code key}: its owner wants it again. Call before the owner's request is sent.
     *
     * @return true if a delete was queued or may still be on its way: the caller must then write the key (so
     *         that its mod revision changes) before it relies on it
     */
    boolean cancel(ByteSequence key) {
        Task t = tasks.remove(key);
        if (t == null) {
            return false;
        }
        synchronized (t) {
            t.cancelled = true;
        }
        return true;
    }

    /** Queued deletes, for tests. */
    int size() {
        return tasks.size();
    }

    /** Sends every due delete that has none in flight. */
    void run(long now) {
        for (Map.Entry<ByteSequence, Task> e : tasks.entrySet()) {
            ByteSequence key = e.getKey();
            Task t = e.getValue();
            if (t.inFlight || now - t.notBeforeNanos < 0) {
                continue;
            }
            t.inFlight = true;
            t.notBeforeNanos = now + RETRY_NANOS;
            CompletableFuture<Boolean> done;
            try {
                done = kv.get(key, GetOption.DEFAULT).thenCompose(r -> deleteIfStill(key, t, r.getKvs().isEmpty() ? null : r.getKvs().get(0)));
            } catch (RuntimeException error) {
                t.inFlight = false;
                continue;
            }
            done.orTimeout(2 * timeout.toMillis(), TimeUnit.MILLISECONDS).whenComplete((settled, error) -> {
                t.inFlight = false;
                if (error == null) {
                    tasks.remove(key, t);
                } else {
                    log.debug("background delete of {} failed; trying again", LockKeys.text(key), error);
                }
            });
        }
    }

    /** The delete itself, once the read found {@code seen}; completes when nothing more is to be done. */
    private CompletableFuture<Boolean> deleteIfStill(ByteSequence key, Task t, KeyValue seen) {
        if (seen == null || t.createRevision != 0 && seen.getCreateRevision() != t.createRevision) {
            return CompletableFuture.completedFuture(false); // gone, or another key of the same name now
        }
        synchronized (t) {
            if (t.cancelled) {
                return CompletableFuture.completedFuture(false); // the owner wants it again
            }
        }
        Op delete = Op.delete(key, DeleteOption.DEFAULT);
        Op[] then = t.heldName == null ? new Op[] {delete}
                : new Op[] {delete, Op.put(keys.lastToken(t.heldName), LockKeys.bytes(Long.toString(seen.getCreateRevision())), PutOption.DEFAULT)};
        log.debug("deleting {} (create revision {}) in the background", LockKeys.text(key), seen.getCreateRevision());
        return kv.txn()
                .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(seen.getCreateRevision())),
                        new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(seen.getModRevision())))
                .Then(then)
                .commit()
                .thenApply(TxnResponse::isSucceeded);
    }
}
