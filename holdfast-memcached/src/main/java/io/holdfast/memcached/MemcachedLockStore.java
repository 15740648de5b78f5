package io.holdfast.memcached;

import io.holdfast.HoldfastException;
import io.holdfast.LockInfo;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.Renewals;
import io.holdfast.spi.StoreTraits;
import net.rubyeye.xmemcached.CommandFactory;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.MemcachedSessionLocator;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;
import net.rubyeye.xmemcached.command.Command;
import net.rubyeye.xmemcached.transcoders.CachedData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.google.code.yanf4j.core.Session;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;

/**
 * Locks as Memcached keys. A lock is the key {@code PREFIX lock: NAME}, created with {@code add} (so only
 * one owner can create it) and an expiry; its value names the owner and carries the fencing token, which
 * comes from {@code incr} on the counter key {@code PREFIX token: NAME}. Renewal and release change the key
 * only through {@code cas} against the CAS id of a value that names the owner, so nobody ever extends or
 * deletes another owner's lock. Memcached has no notifications; waiters poll (the core does that).
 *
 * <p>Expiry is in whole seconds by the server's one-second clock: a key stored with expiry {@code N}
 * lives more than {@code N - 2} and at most {@code N} seconds. The store therefore asks for
 * {@code ceil(lease) + 2} seconds, so that the server keeps the key at least the whole lease, past the
 * holder's own deadline (lease minus the core's safety margin), and frees a crashed holder's lock at most
 * {@code ceil(lease) + 2} seconds after its last renewal.
 */
final class MemcachedLockStore implements LockStore {
    private static final Logger log = LoggerFactory.getLogger(MemcachedLockStore.class);
    static final String BACKEND = "memcached";
    /** Memcached's expiry granularity. */
    static final Duration MIN_LEASE = Duration.ofSeconds(1);
    /** Seconds added to the rounded-up lease: one for the truncation of the server's clock, one for a late tick. */
    static final int EXPIRY_PADDING_SECONDS = 2;
    /** Attempts within one call when a key changes between two of its round trips. */
    private static final int PASSES = 3;
    private static final int LIST_CHUNK = 200;

    private final MemcachedUri uri;
    private final LockKeys keys;
    private final MemcachedClient client;
    private final CommandFactory commands;
    private final MemcachedSessionLocator locator;
    private final MetaProbe probe;
    private final StoreTraits traits;
    private final TokenCounter tokens = new TokenCounter();

    private MemcachedLockStore(MemcachedUri uri, LockKeys keys, MemcachedClient client, CommandFactory commands,
                               MemcachedSessionLocator locator) {
        this.uri = uri;
        this.keys = keys;
        this.client = client;
        this.commands = commands;
        this.locator = locator;
        this.probe = new MetaProbe(BACKEND, uri.address, uri.timeout.toMillis(), uri.connectTimeout.toMillis());
        this.traits = new StoreTraits("best effort: each lock lives on the one Memcached server that consistent hashing picks "
                + "for its name, without replication; a restart, an eviction or the loss of that server frees the lock silently "
                + "until the holder's next renewal (lease/3 later) reports it lost, so guard writes with the fencing token",
                false, MIN_LEASE, uri.maxPoll);
    }

    /**
     * Connects to the servers of the URI. A server that does not answer keeps its place in the hash ring
     * (xmemcached's failure mode), so its names fail with {@link StoreUnavailableException} until it answers
     * and are never taken on another server.
     *
     * @throws StoreUnavailableException if no server can be reached
     */
    static MemcachedLockStore open(MemcachedUri uri) {
        List<InetSocketAddress> resolved = new ArrayList<>();
        for (InetSocketAddress server : uri.servers) {
            InetSocketAddress r = new InetSocketAddress(server.getHostString(), server.getPort());
            if (r.isUnresolved()) {
                throw new StoreUnavailableException(BACKEND, uri.address, "cannot resolve host " + server.getHostString(), null);
            }
            resolved.add(r);
        }
        LockKeys keys = new LockKeys(uri.prefix);
        CommandFactory commands = new BinaryCommandFactory(); // delete with CAS, incr that creates its counter
        MemcachedSessionLocator locator = keys.locator();
        XMemcachedClientBuilder builder = new XMemcachedClientBuilder(resolved);
        builder.setCommandFactory(commands);
        builder.setSessionLocator(locator);
        builder.setFailureMode(true); // a down server's keys fail; they never move to another server
        builder.setConnectionPoolSize(1); // one connection per server keeps a batch's commands in order
        builder.setOpTimeout(uri.timeout.toMillis());
        builder.setConnectTimeout(uri.connectTimeout.toMillis());
        builder.setHealSessionInterval(200);
        builder.setSanitizeKeys(false);
        MemcachedClient client;
        try {
            client = builder.build();
        } catch (IOException e) {
            throw new StoreUnavailableException(BACKEND, uri.address, "cannot connect: " + e.getMessage(), e);
        }
        List<String> down = new ArrayList<>();
        for (int i = 0; i < resolved.size(); i++) {
            Queue<Session> sessions = client.getConnector().getSessionByAddress(resolved.get(i));
            if (sessions == null || sessions.stream().allMatch(Session::isClosed)) {
                down.add(MemcachedUri.hostPort(uri.servers.get(i))); // as written: a resolved address may print a looked-up name
            }
        }
        if (down.size() == resolved.size()) {
            shutdownQuietly(client);
            throw new StoreUnavailableException(BACKEND, uri.address, "cannot connect to " + String.join(", ", down), null);
        }
        if (!down.isEmpty()) {
            // Failure mode keeps a placeholder for them: their names fail until they answer, and never move.
            log.warn("memcached servers {} do not answer; the locks that hash to them are unavailable until they do", down);
        }
        return new MemcachedLockStore(uri, keys, client, commands, locator);
    }

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public String address() {
        return uri.address;
    }

    @Override
    public StoreTraits traits() {
        return traits;
    }

    /** Seconds of expiry asked of Memcached for {@code lease}; see the class description. */
    static int expirySeconds(Duration lease) {
        long millis = lease.toMillis();
        return (int) ((millis + 999) / 1000) + EXPIRY_PADDING_SECONDS;
    }

    /**
     * One round trip carries {@code add} of the lock (token 0), {@code incr} of its counter and {@code gets}
     * of the lock, in that order on the lock's server. If the lock is ours with token 0, a second round trip
     * writes the token in with {@code cas}: the token was issued after our {@code add} while our key existed,
     * so it is greater than the token of every earlier holder, whose {@code incr} ran while its own key existed
     * (while the counter survives). A counter lost to eviction and re-created may issue less than a token this
     * store has seen for the name; then the counter is first raised above that token, on the same connection.
     * A retry that finds its own completed acquisition writes the value back with {@code cas} and a fresh
     * expiry, since the core counts the hold's lease from this call.
     */
    @Override
    public Attempt tryAcquire(String name, String ownerId, String holder, Duration lease) {
        if (ownerId.indexOf('|') >= 0) {
            throw new IllegalArgumentException("owner id '" + ownerId + "' contains '|'");
        }
        String lockKey = keys.lock(name);
        int expiry = expirySeconds(lease);
        LockValue mine = new LockValue(0, lease.toMillis(), ownerId, holder);
        String what = "acquire '" + name + "'";
        for (int pass = 1; pass <= PASSES; pass++) {
            Batch batch = batch(what);
            batch.add(lockKey, expiry, mine.encode());
            Command incr = batch.incr(keys.token(name), tokens.seed(name));
            Command gets = batch.gets(lockKey);
            batch.await();
            if (Batch.lostCreateRace(incr) && pass < PASSES) {
                continue; // the counter was created by another client's first incr just now: again (our add is ours)
            }
            long issued = Batch.number(incr);
            CachedData current = Batch.value(gets);
            if (current == null) {
                tokens.remember(name, issued);
                continue; // freed between the add and the gets: try again
            }
            LockValue found = LockValue.decode(current.getData());
            if (!found.ownedBy(ownerId)) {
                tokens.remember(name, issued);
                tokens.remember(name, found.token());
                return Attempt.busy(null);
            }
            if (found.token() != 0) {
                // A retry of an acquisition that completed: its key still has the first attempt's expiry, and the
                // core counts the lease from this call. Refresh it, or report nothing.
                Batch refresh = batch(what);
                Command touch = refresh.cas(lockKey, expiry, new String(current.getData(), StandardCharsets.UTF_8), current.getCas());
                refresh.await();
                if (Batch.stored(touch)) {
                    return Attempt.acquired(found.token());
                }
                continue; // the key changed in between: look again
            }
            long floor = tokens.floor(name); // every token seen, in this call too, was remembered as it was seen
            if (issued <= floor) {
                // The counter was lost and re-created below a token already seen: raise it above, and use that.
                Batch raise = batch(what);
                Command bump = raise.incr(keys.token(name), floor - issued + 1, floor + 1);
                raise.await();
                issued = Batch.number(bump);
            }
            tokens.remember(name, issued);
            Batch write = batch(what);
            Command cas = write.cas(lockKey, expiry, found.withToken(issued).encode(), current.getCas());
            write.await();
            if (Batch.stored(cas)) {
                return Attempt.acquired(issued);
            }
        }
        return Attempt.busy(Duration.ZERO);
    }

    /**
     * One round trip reads every lock ({@code gets}); a second writes back, with {@code cas} and the new
     * expiry, each one whose value still names its owner. A lock that changed in between is read once more.
     * Locks on a server that cannot be reached are unknown: the core retries them until their deadlines,
     * while the holds on servers that answered are renewed or reported gone (if no server answers at all,
     * the call fails as a whole).
     */
    @Override
    public Renewals renewEach(Collection<HoldRef> holds, Duration lease) {
        int expiry = expirySeconds(lease);
        Set<String> renewed = new HashSet<>();
        Set<String> gone = new HashSet<>();
        List<HoldRef> pending = new ArrayList<>(holds);
        String what = "renew " + holds.size() + " lease(s)";
        RuntimeException firstFailure = null;
        int failed = 0;
        for (int pass = 1; pass <= 2 && !pending.isEmpty(); pass++) {
            Batch read = batch(what);
            List<Command> reads = new ArrayList<>(pending.size());
            for (HoldRef hold : pending) {
                reads.add(read.gets(keys.lock(hold.name())));
            }
            read.awaitEach();
            Batch write = batch(what);
            Map<HoldRef, Command> writes = new LinkedHashMap<>();
            for (int i = 0; i < pending.size(); i++) {
                HoldRef hold = pending.get(i);
                RuntimeException failure = read.failure(reads.get(i));
                if (failure != null) {
                    firstFailure = firstFailure == null ? failure : firstFailure;
                    failed++;
                    continue;
                }
                CachedData current = Batch.value(reads.get(i));
                if (current != null && LockValue.decode(current.getData()).ownedBy(hold.ownerId())) {
                    String same = new String(current.getData(), StandardCharsets.UTF_8);
                    writes.put(hold, write.cas(keys.lock(hold.name()), expiry, same, current.getCas()));
                } else {
                    gone.add(hold.ownerId()); // its server answered: the key is gone or another owner's
                }
            }
            write.awaitEach();
            List<HoldRef> again = new ArrayList<>();
            for (Map.Entry<HoldRef, Command> w : writes.entrySet()) {
                RuntimeException failure = write.failure(w.getValue());
                if (failure != null) {
                    firstFailure = firstFailure == null ? failure : firstFailure;
                    failed++;
                } else if (Batch.stored(w.getValue())) {
                    renewed.add(w.getKey().ownerId());
                } else {
                    again.add(w.getKey());
                }
            }
            pending = again;
        }
        if (firstFailure != null && renewed.isEmpty()) {
            throw firstFailure;
        }
        if (failed > 0) {
            log.warn("{} of {} lease(s) on {} got no answer ({}); they are retried until their deadlines", failed, holds.size(),
                    uri.address, firstFailure.getMessage());
        }
        return new Renewals(renewed, gone); // the rest (a server that failed, a value that kept changing) is unknown
    }

    /** As {@link #renewEach}; throws if a server did not answer, so no unanswered hold is called gone. */
    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        return renewEach(holds, lease).renewedIfAllAnswered(holds, backend(), uri.address);
    }

    /** {@code gets}, then {@code delete} with its CAS id if the value names {@code ownerId}: never a blind delete. */
    @Override
    public boolean release(String name, String ownerId) {
        String lockKey = keys.lock(name);
        String what = "release '" + name + "'";
        for (int pass = 1; pass <= PASSES; pass++) {
            Batch read = batch(what);
            Command gets = read.gets(lockKey);
            read.await();
            CachedData current = Batch.value(gets);
            if (current == null || !LockValue.decode(current.getData()).ownedBy(ownerId)) {
                return false;
            }
            Batch delete = batch(what);
            Command del = delete.delete(lockKey, current.getCas());
            delete.await();
            if (Batch.stored(del)) {
                return true;
            }
        }
        log.warn("release of '{}' on {} kept racing with changes to the key; it frees when its lease runs out", name, uri.address);
        return false;
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        String lockKey = keys.lock(name);
        String tokenKey = keys.token(name);
        Map<String, MetaProbe.Entry> found = probe.get(serverOf(lockKey), List.of(lockKey, tokenKey));
        MetaProbe.Entry lock = found.get(lockKey);
        if (lock != null) {
            return Optional.of(held(name, lock));
        }
        MetaProbe.Entry counter = found.get(tokenKey);
        if (counter == null) {
            return Optional.empty();
        }
        return Optional.of(new LockInfo(name, false, null, null, parseCounter(counter.value()), null));
    }

    /**
     * Lists keys with Memcached's LRU crawler on every server (a scan of the whole cache: an operator's
     * tool, not for hot paths), then reads the candidates from the server each name hashes to.
     */
    @Override
    public List<LockInfo> list(String prefix, int limit) {
        Set<String> names = new TreeSet<>();
        for (InetSocketAddress server : uri.servers) {
            for (String key : probe.keys(server, keys.lock(prefix))) {
                String name = keys.nameOfLock(key);
                if (name != null) {
                    names.add(name);
                }
            }
        }
        List<LockInfo> out = new ArrayList<>();
        List<String> ordered = new ArrayList<>(names);
        for (int from = 0; from < ordered.size() && out.size() < limit; from += LIST_CHUNK) {
            List<String> chunk = ordered.subList(from, Math.min(ordered.size(), from + LIST_CHUNK));
            Map<InetSocketAddress, List<String>> byServer = new LinkedHashMap<>();
            for (String name : chunk) {
                byServer.computeIfAbsent(serverOf(keys.lock(name)), s -> new ArrayList<>()).add(keys.lock(name));
            }
            Map<String, MetaProbe.Entry> found = new HashMap<>();
            byServer.forEach((server, lockKeys) -> found.putAll(probe.get(server, lockKeys)));
            for (String name : chunk) {
                MetaProbe.Entry e = found.get(keys.lock(name));
                if (e != null && out.size() < limit) {
                    out.add(held(name, e));
                }
            }
        }
        return out;
    }

    /** A blind {@code delete}: the operator's explicit override. */
    @Override
    public boolean forceRelease(String name) {
        Batch batch = batch("force-release '" + name + "'");
        Command del = batch.delete(keys.lock(name), 0);
        batch.await();
        return Batch.stored(del);
    }

    @Override
    public void close() {
        shutdownQuietly(client);
    }

    private LockInfo held(String name, MetaProbe.Entry entry) {
        LockValue v = LockValue.decode(entry.value());
        Duration remaining = null;
        if (entry.ttlSeconds() >= 0) {
            // The key may outlive the lease by the expiry padding; report no more than the lease itself.
            long ttlMillis = entry.ttlSeconds() * 1000;
            remaining = Duration.ofMillis(v.leaseMillis() > 0 ? Math.min(ttlMillis, v.leaseMillis()) : ttlMillis);
        }
        return new LockInfo(name, true, v.holder(), v.ownerId(), v.token(), remaining);
    }

    private long parseCounter(byte[] value) {
        String text = new String(value, StandardCharsets.US_ASCII).trim();
        try {
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw new HoldfastException(BACKEND + " store at " + uri.address + ": the token counter holds '" + text + "', not a number", e);
        }
    }

    private InetSocketAddress serverOf(String key) {
        Session session = locator.getSessionByKey(key);
        if (session == null) {
            throw new StoreUnavailableException(BACKEND, uri.address, "no server connected for " + key, null);
        }
        return session.getRemoteSocketAddress();
    }

    private Batch batch(String what) {
        return new Batch(client.getConnector(), commands, BACKEND, uri.address, uri.timeout.toMillis(), what);
    }

    private static void shutdownQuietly(MemcachedClient client) {
        try {
            client.shutdown();
        } catch (IOException e) {
            log.debug("closing the memcached client failed", e);
        }
    }
}
