package io.holdfast.redis;

import io.holdfast.HoldfastException;
import io.holdfast.LockInfo;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.Renewals;
import io.holdfast.spi.StoreTraits;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Locks on one Redis deployment: a node, a Sentinel-watched master or a Cluster. Each operation is one
 * script call ({@link LuaScript}); renewals of many holds go in one call per Cluster slot (one call in
 * all on a single node).
 */
final class RedisLockStore implements LockStore {
    private static final Logger log = LoggerFactory.getLogger(RedisLockStore.class);
    private static final long QUEUE_TTL_MS = Duration.ofMinutes(5).toMillis();
    private static final int SCAN_BATCH = 1_000;
    private static final int MAX_SCANS = 100_000;

    final RedisConnection connection;
    final String clientId;
    private final RedisTarget target;
    private final LockKeys keys;
    private final StoreTraits traits;
    private final ReleaseWatches watches;

    RedisLockStore(RedisTarget target, RedisConnection connection, String clientId) {
        this.target = target;
        this.connection = connection;
        this.clientId = clientId;
        this.keys = new LockKeys(target.prefix);
        this.traits = new StoreTraits(consistency(target), true, Duration.ofMillis(100), target.maxPoll);
        this.watches = new ReleaseWatches(connection, keys, clientId, this::passTurn);
        preload();
    }

    /**
     * Loads the scripts (on every master of a Cluster) so the first calls find them; a server that loses
     * them later (restart, failover) gets them again from the NOSCRIPT fallback.
     */
    private void preload() {
        List<CompletableFuture<String>> loads = new ArrayList<>();
        for (LuaScript script : LuaScript.ALL) {
            loads.add(connection.commands.scriptLoad(script.source).toCompletableFuture());
        }
        for (CompletableFuture<String> load : loads) {
            try {
                Errors.await(load, connection, "load the lock scripts");
            } catch (RuntimeException e) {
                log.debug("loading the lock scripts on {} failed; they load on first use", address(), e);
            }
        }
    }

    /** Opens a store on a node, a Sentinel-watched master or a Cluster. */
    static RedisLockStore open(RedisTarget target) {
        RedisConnection c = new RedisConnection(target.backend(), target.address, target.mode == RedisTarget.Mode.CLUSTER,
                target.uris, target.timeout);
        return new RedisLockStore(target, c, newClientId());
    }

    /** Opens a store on connections of an application's client (see {@link RedisLocks}). */
    static RedisLockStore open(RedisTarget target, io.lettuce.core.RedisClient client) {
        RedisURI uri = target.uris.isEmpty() ? null : target.uris.get(0);
        RedisConnection c = new RedisConnection(target.backend(), target.address, client, uri, target.timeout);
        try {
            return new RedisLockStore(target, c, newClientId());
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    static String newClientId() {
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    private static String consistency(RedisTarget target) {
        return switch (target.mode) {
            case STANDALONE -> "best effort on one Redis node: exclusion holds while the node keeps its data "
                    + "(a restart without persistence forgets every hold); leases by the server's clock";
            case SENTINEL -> "best effort: replication is asynchronous, so a failover can lose a recent acquisition and let a "
                    + "second holder in (fencing tokens stay above the lost ones; waitReplicas narrows the window, it is not consensus)";
            case CLUSTER -> "best effort per slot: each lock lives on one master; replication is asynchronous, so a failover "
                    + "can lose a recent acquisition (fencing tokens stay above the lost ones)";
            case REDLOCK -> "one master of a Redlock quorum";
        };
    }

    @Override
    public String backend() {
        return connection.backend;
    }

    @Override
    public String address() {
        return connection.address;
    }

    @Override
    public StoreTraits traits() {
        return traits;
    }

    // ----------------------------------------------------------------------------------------------- acquire

    @Override
    public Attempt tryAcquire(String name, String ownerId, String holder, Duration lease) {
        watches.countAttempt(name);
        if (target.waitReplicas > 0) {
            return acquireReplicated(name, ownerId, holder, lease);
        }
        return Errors.await(acquireAsync(connection.commands, name, ownerId, holder, lease, 0), connection, "acquire '" + name + "'");
    }

    /**
     * One acquire script call for Redlock: {@code floor} raises a re-granted token, 0 for none; {@code attempt}
     * numbers the Redlock attempt, so that {@link #giveBackAsync} of an earlier attempt cannot free the hold.
     */
    CompletableFuture<Attempt> acquireAsync(String name, String ownerId, String holder, Duration lease, long floor, long attempt) {
        if (floor == 0) {
            watches.countAttempt(name);
        }
        return acquireAsync(connection.commands, name, ownerId, holder, lease, floor, attempt);
    }

    private CompletableFuture<Attempt> acquireAsync(RedisClusterAsyncCommands<String, String> commands, String name, String ownerId,
                                                    String holder, Duration lease, long floor) {
        return acquireAsync(commands, name, ownerId, holder, lease, floor, 0);
    }

    private CompletableFuture<Attempt> acquireAsync(RedisClusterAsyncCommands<String, String> commands, String name, String ownerId,
                                                    String holder, Duration lease, long floor, long attempt) {
        // A client that waits, or waited lately, for the lock may be in its queue: a grant takes it out.
        String mayBeQueued = watches.isSubscribed(name) ? "1" : "0";
        String[] args = {ownerId, holder, Long.toString(lease.toMillis()), clientId, Long.toString(QUEUE_TTL_MS), Long.toString(floor),
                mayBeQueued};
        if (attempt > 0) {
            args = java.util.Arrays.copyOf(args, 8);
            args[7] = Long.toString(attempt);
        }
        CompletableFuture<List<Object>> reply = LuaScript.ACQUIRE.run(commands, ScriptOutputType.MULTI, keys.forAcquire(name), args);
        return reply.thenApply(r -> {
            long value = (Long) r.get(1);
            if ((Long) r.get(0) == 1L) {
                return Attempt.acquired(value);
            }
            return Attempt.busy(value > 0 ? Duration.ofMillis(value) : null);
        });
    }

    /**
     * Acquire, then WAIT for the replicas on the same (dedicated) connection. The WAIT is sent once the
     * script's reply is in, never pipelined with it: after a NOSCRIPT (common right after a failover) the
     * script runs again as EVAL, and a WAIT sent before that would confirm nothing.
     */
    private Attempt acquireReplicated(String name, String ownerId, String holder, Duration lease) {
        StatefulRedisConnection<String, String> c = connection.replicated();
        Attempt result = Errors.await(acquireAsync(c.async(), name, ownerId, holder, lease, 0), connection, "acquire '" + name + "'");
        if (!result.acquired()) {
            return result;
        }
        long replicas = awaitReplicas(c);
        if (replicas < target.waitReplicas) {
            try {
                release(name, ownerId);
            } catch (RuntimeException e) {
                log.debug("giving back '{}' after too few replica acknowledgements failed; it ends with its lease", name, e);
            }
            throw new StoreUnavailableException(backend(), address(), "only " + replicas + " of the " + target.waitReplicas
                    + " replicas asked for (waitReplicas) acknowledged the acquisition of '" + name + "' within "
                    + target.waitTimeout.toMillis() + " ms; it was given back", null);
        }
        return result;
    }

    private long awaitReplicas(StatefulRedisConnection<String, String> c) {
        return Errors.await(c.async().waitForReplication(target.waitReplicas, target.waitTimeout.toMillis()).toCompletableFuture(),
                connection, "wait for replicas");
    }

    // ----------------------------------------------------------------------------------------------- renew

    /**
     * Renews every hold still held by its owner: one script call per Cluster slot (all sent at once), one
     * call in all elsewhere. A slot whose master fails or does not answer leaves its holds unknown, so the
     * core retries them until their deadlines; holds on masters that answered are renewed or gone as the
     * masters say. With {@code waitReplicas}, a renewal the replicas did not acknowledge is unknown.
     */
    @Override
    public Renewals renewEach(Collection<HoldRef> holds, Duration lease) {
        if (holds.isEmpty()) {
            return new Renewals(Set.of(), Set.of());
        }
        if (target.waitReplicas > 0) {
            StatefulRedisConnection<String, String> c = connection.replicated();
            Renewals result = Errors.await(renewAsync(c.async(), holds, lease, true), connection, "renew " + holds.size() + " lease(s)");
            long replicas = awaitReplicas(c); // after the reply: see acquireReplicated
            if (replicas < target.waitReplicas) {
                throw new StoreUnavailableException(backend(), address(), "only " + replicas + " of " + target.waitReplicas
                        + " replicas acknowledged a renewal within " + target.waitTimeout.toMillis() + " ms", null);
            }
            return result;
        }
        return Errors.await(renewAsync(connection.commands, holds, lease, false), connection, "renew " + holds.size() + " lease(s)");
    }

    /** As {@link #renewEach}; throws if any slot did not answer, so no unanswered hold is called gone. */
    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        return renewEach(holds, lease).renewedIfAllAnswered(holds, backend(), address());
    }

    /** The renewed owners, for Redlock's vote; fails if any slot fails (one master is one voter). */
    CompletableFuture<Set<String>> renewAsync(Collection<HoldRef> holds, Duration lease) {
        return renewAsync(connection.commands, holds, lease, true).thenApply(Renewals::renewed);
    }

    private CompletableFuture<Renewals> renewAsync(RedisClusterAsyncCommands<String, String> commands, Collection<HoldRef> holds,
                                                   Duration lease, boolean failWhole) {
        Map<Integer, List<HoldRef>> groups = new LinkedHashMap<>();
        for (HoldRef hold : holds) {
            int slot = connection.cluster ? SlotHash.getSlot(keys.base(hold.name())) : 0;
            groups.computeIfAbsent(slot, s -> new ArrayList<>()).add(hold);
        }
        String leaseMs = Long.toString(lease.toMillis());
        List<CompletableFuture<Renewals>> calls = new ArrayList<>();
        for (List<HoldRef> group : groups.values()) {
            String[] k = new String[group.size()];
            String[] args = new String[group.size() + 1];
            args[0] = leaseMs;
            for (int i = 0; i < group.size(); i++) {
                k[i] = keys.base(group.get(i).name());
                args[i + 1] = group.get(i).ownerId();
            }
            CompletableFuture<List<Object>> reply = LuaScript.RENEW.run(commands, ScriptOutputType.MULTI, k, args);
            CompletableFuture<Renewals> call = reply.thenApply(positions -> {
                Set<String> renewed = new HashSet<>();
                for (Object p : positions) {
                    renewed.add(group.get((int) (long) (Long) p - 1).ownerId());
                }
                return Renewals.allAnswered(group, renewed);
            });
            if (!failWhole) {
                call = call.exceptionally(e -> {
                    log.warn("renewing {} lease(s) on the master of one slot of {} failed; they are retried until their deadlines: {}",
                            group.size(), address(), Errors.rootMessage(Errors.unwrap(e)));
                    return new Renewals(Set.of(), Set.of()); // unknown
                });
            }
            calls.add(call);
        }
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenApply(done -> {
            Set<String> renewed = new HashSet<>();
            Set<String> gone = new HashSet<>();
            for (CompletableFuture<Renewals> c : calls) {
                renewed.addAll(c.join().renewed());
                gone.addAll(c.join().notHeld());
            }
            return new Renewals(renewed, gone);
        });
    }

    // ----------------------------------------------------------------------------------------------- release

    @Override
    public boolean release(String name, String ownerId) {
        return Errors.await(releaseAsync(name, ownerId), connection, "release '" + name + "'");
    }

    CompletableFuture<Boolean> releaseAsync(String name, String ownerId) {
        return runRelease("release", name, ownerId);
    }

    /**
     * Redlock's give-back of one attempt that did not count: frees the owner's hold unless a later attempt of the
     * same owner created or re-granted it (the script compares attempt numbers), so a give-back that arrives late,
     * or is retried after the owner tried again and won, never frees what the owner won.
     */
    CompletableFuture<Boolean> giveBackAsync(String name, String ownerId, long attempt) {
        CompletableFuture<Long> reply = LuaScript.RELEASE.run(connection.commands, ScriptOutputType.INTEGER, keys.forRelease(name),
                "release", ownerId, keys.wakePrefix(name), Long.toString(target.handoff.toMillis()), Long.toString(attempt));
        return reply.thenApply(r -> r == 1L);
    }

    @Override
    public boolean forceRelease(String name) {
        return Errors.await(forceReleaseAsync(name), connection, "force-release '" + name + "'");
    }

    CompletableFuture<Boolean> forceReleaseAsync(String name) {
        return runRelease("force", name, "");
    }

    /** A wake-up reached this client after its waiter for {@code name} left: hand the reservation on. */
    private void passTurn(String name) {
        if (target.handoff.isZero()) {
            return;
        }
        runRelease("pass", name, clientId).exceptionally(e -> {
            log.debug("passing the turn for '{}' on failed; the reservation ends by itself", name, e);
            return false;
        });
    }

    private CompletableFuture<Boolean> runRelease(String mode, String name, String ownerOrClient) {
        CompletableFuture<Long> reply = LuaScript.RELEASE.run(connection.commands, ScriptOutputType.INTEGER, keys.forRelease(name),
                mode, ownerOrClient, keys.wakePrefix(name), Long.toString(target.handoff.toMillis()));
        return reply.thenApply(r -> r == 1L);
    }

    // ----------------------------------------------------------------------------------------------- waiting

    @Override
    public AutoCloseable watchReleases(String name, String ownerId, Runnable onRelease) {
        return watches.watch(name, payload -> onRelease.run());
    }

    /** Calls {@code onRelease} with each wake-up's payload (the released token) for this client. */
    AutoCloseable watch(String name, Consumer<String> onRelease) {
        return watches.watch(name, onRelease);
    }

    // ----------------------------------------------------------------------------------------------- operators

    @Override
    public Optional<LockInfo> inspect(String name) {
        return Errors.await(inspectAsync(name), connection, "inspect '" + name + "'");
    }

    CompletableFuture<Optional<LockInfo>> inspectAsync(String name) {
        CompletableFuture<List<Object>> reply = LuaScript.INSPECT.run(connection.commands, ScriptOutputType.MULTI, keys.forInspect(name));
        return reply.thenApply(r -> {
            String owner = (String) r.get(0);
            String holder = (String) r.get(1);
            String token = (String) r.get(2);
            long pttl = (Long) r.get(3);
            String last = (String) r.get(4);
            if (owner != null && token != null && pttl > 0) {
                return Optional.of(new LockInfo(name, true, holder, owner, Long.parseLong(token), Duration.ofMillis(pttl)));
            }
            if (last == null) {
                return Optional.empty();
            }
            return Optional.of(new LockInfo(name, false, null, null, Long.parseLong(last), null));
        });
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        List<String> names = names(prefix);
        List<CompletableFuture<Optional<LockInfo>>> infos = new ArrayList<>();
        for (String name : names) {
            infos.add(inspectAsync(name));
        }
        List<LockInfo> held = new ArrayList<>();
        for (CompletableFuture<Optional<LockInfo>> info : infos) {
            Errors.await(info, connection, "inspect a lock").filter(LockInfo::held).ifPresent(held::add);
        }
        held.sort(Comparator.comparing(LockInfo::name));
        return held.size() > limit ? List.copyOf(held.subList(0, limit)) : held;
    }

    /** Names with a lock key under {@code prefix}, found by SCAN (over every master of a Cluster). */
    List<String> names(String prefix) {
        RedisClusterAsyncCommands<String, String> commands = connection.commands;
        ScanArgs args = ScanArgs.Builder.matches(keys.scanPattern(prefix)).limit(SCAN_BATCH);
        List<String> names = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        for (int i = 0; i < MAX_SCANS; i++) {
            KeyScanCursor<String> page = Errors.await(commands.scan(cursor, args).toCompletableFuture(), connection, "list locks");
            for (String key : page.getKeys()) {
                String name = keys.nameOfLockKey(key);
                if (name != null) {
                    names.add(name);
                }
            }
            if (page.isFinished()) {
                return names;
            }
            cursor = page;
        }
        throw new HoldfastException(backend() + " store at " + address() + ": listing locks took more than " + MAX_SCANS + " SCAN calls");
    }

    @Override
    public void close() {
        watches.close();
        connection.close();
    }
}
