package io.holdfast.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.holdfast.Hold;
import io.holdfast.LockNames;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Writes to etcd that take effect only while a Holdfast lock on the same etcd is still held: the fencing
 * check for data kept in etcd itself, done by etcd in the same transaction as the write.
 *
 * <p>A hold's fencing token is the create revision of the key that won the lock. {@link #commitIfHeld}
 * runs its operations in one transaction whose condition is that this key still exists with that create
 * revision. While it does, its owner holds the lock: every key of the lock created before it was deleted
 * before it won, and etcd never reuses a revision. Once the key is gone (its session lease ran out because
 * the holder was paused or cut off, an operator force-released it, or it was released), the condition fails
 * and nothing is written, however late the stale holder's write arrives. {@link Hold#checkValid()} cannot
 * give that guarantee: a pause between the check and the write (a GC pause, a SIGSTOP) lets the write land
 * after the lock has passed on. etcd's own lock API (and jetcd's {@code Lock} client) returns a key but no
 * such check; Jepsen showed its holders can overlap.
 *
 * <p>Thread-safe. Use the same key prefix as the Holdfast URI ({@link #open(String)} reads it from there).
 */
public final class EtcdFencing implements AutoCloseable {
    private static final int REMEMBERED_KEYS = 256;

    private final Client client;
    private final boolean ownsClient;
    private final LockKeys keys;
    private final EtcdCalls calls;
    private final java.time.Duration timeout;
    // Guarded by itself: lock name + token -> the key that won, so a second write needs no lookup.
    private final Map<String, ByteSequence> winners = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ByteSequence> eldest) {
            return size() > REMEMBERED_KEYS;
        }
    };

    private EtcdFencing(Client client, boolean ownsClient, String prefix, String address, java.time.Duration timeout) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.keys = new LockKeys(prefix);
        this.calls = new EtcdCalls(address);
        this.timeout = timeout;
    }

    /**
     * Fenced writes through {@code client} (which the caller keeps and closes), for locks under the default
     * key prefix {@code holdfast}.
     */
    public static EtcdFencing using(Client client) {
        return using(client, EtcdUri.DEFAULT_PREFIX);
    }

    /**
     * Fenced writes through {@code client} (which the caller keeps and closes), for locks under {@code keyPrefix}
     * (the path of the Holdfast URI, for example {@code myapp/locks} for {@code etcd://host:2379/myapp/locks}).
     */
    public static EtcdFencing using(Client client, String keyPrefix) {
        Objects.requireNonNull(client, "client");
        EtcdUri parsed = EtcdUri.parse("etcd://localhost/" + Objects.requireNonNull(keyPrefix, "keyPrefix"));
        return new EtcdFencing(client, false, parsed.prefix, "jetcd client /" + parsed.prefix, EtcdUri.DEFAULT_TIMEOUT);
    }

    /**
     * Fenced writes through a client of its own, built from a Holdfast etcd URI (endpoints, credentials, TLS,
     * key prefix, requestTimeout); {@link #close()} closes it. Connects lazily.
     *
     * @throws IllegalArgumentException if the URI is not a valid {@code etcd://} or {@code etcds://} URI
     */
    public static EtcdFencing open(String uri) {
        EtcdUri parsed = EtcdUri.parse(uri);
        return new EtcdFencing(EtcdClients.build(parsed), true, parsed.prefix, parsed.address, parsed.requestTimeout);
    }

    /** The jetcd client the writes go through. */
    public Client client() {
        return client;
    }

    /**
     * Runs {@code ops} in one etcd transaction if {@code hold}'s lock is still held at etcd by the acquisition
     * that issued its fencing token; otherwise does nothing.
     *
     * @return true if the operations were applied; false if the hold had been lost at etcd, in which case
     *         nothing was written
     * @throws io.holdfast.StoreUnavailableException if etcd did not answer (the write may or may not have
     *         been applied, as with any etcd write whose reply is lost)
     */
    public boolean commitIfHeld(Hold hold, Op... ops) {
        Objects.requireNonNull(hold, "hold");
        String name = LockNames.requireValid(hold.lockName());
        long token = hold.fencingToken();
        ByteSequence winner = winner(name, token);
        if (winner == null) {
            return false;
        }
        TxnResponse r = calls.await(client.getKVClient().txn()
                .If(new Cmp(winner, Cmp.Op.EQUAL, CmpTarget.createRevision(token)))
                .Then(ops)
                .commit(), timeout, "write under the lock '" + name + "' (token " + token + ")");
        if (!r.isSucceeded()) {
            forget(name, token);
        }
        return r.isSucceeded();
    }

    /**
     * Sets {@code key} to {@code value} (UTF-8) if {@code hold}'s lock is still held; see {@link #commitIfHeld}.
     *
     * @return true if written, false if the hold had been lost at etcd (nothing was written)
     */
    public boolean putIfHeld(Hold hold, String key, String value) {
        return commitIfHeld(hold, Op.put(LockKeys.bytes(key), LockKeys.bytes(value), PutOption.DEFAULT));
    }

    /** Whether {@code hold}'s key is still at etcd, that is whether a {@link #commitIfHeld} now would apply. */
    public boolean isHeldAtEtcd(Hold hold) {
        String name = LockNames.requireValid(hold.lockName());
        forget(name, hold.fencingToken());
        return winner(name, hold.fencingToken()) != null;
    }

    private ByteSequence winner(String name, long token) {
        String id = name + "#" + token;
        synchronized (winners) {
            ByteSequence known = winners.get(id);
            if (known != null) {
                return known; // the transaction's condition checks that it still exists
            }
        }
        GetResponse r = calls.await(client.getKVClient().get(keys.lock(name), GetOption.builder().isPrefix(true)
                        .withMinCreateRevision(token).withMaxCreateRevision(token).withLimit(1).build()),
                timeout, "find the key of lock '" + name + "' with token " + token);
        if (r.getKvs().isEmpty()) {
            return null;
        }
        KeyValue kv = r.getKvs().get(0);
        synchronized (winners) {
            winners.put(id, kv.getKey());
        }
        return kv.getKey();
    }

    private void forget(String name, long token) {
        synchronized (winners) {
            winners.remove(name + "#" + token);
        }
    }

    /** Closes the client if this object built it ({@link #open(String)}). */
    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "EtcdFencing[" + new String(keys.all().getBytes(), StandardCharsets.UTF_8) + "]";
    }
}
