package io.holdfast.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Lua scripts that are the whole algorithm. Every key of one call shares the lock name's hash tag
 * ({@code {name}}), so each call runs on one Cluster slot, atomically. Leases are {@code PEXPIRE}s, so the
 * server's clock decides expiry.
 *
 * <p>Keys of the lock called N under prefix P: {@code P{N}} (hash: owner, holder, token; expires with the
 * lease), {@code P{N}:token} (the fencing counter, kept forever so tokens never repeat), {@code P{N}:queue}
 * (sorted set of waiting client ids by arrival, by the server's clock), {@code P{N}:turn} (the client the
 * lock is being handed to, for a short reservation). Wake-ups go to the shard channel
 * {@code P{N}:wake:CLIENT}, one per waiting client.
 */
final class LuaScript {

    /**
     * KEYS: lock, token, queue, turn. ARGV: owner, holder, lease ms, client id, queue ttl ms, floor.
     * Returns {1, token} if granted (the same token when the owner already holds it), else {0, ms until the
     * holder's lease or the hand-off reservation ends}. A refused client joins the queue (keeping its place).
     * A new token is one more than the counter, and at least the server's clock in microseconds, so a
     * master promoted after losing recent writes still issues tokens above the lost ones. A positive floor
     * on a re-grant raises the token and counter to it (Redlock's second round).
     */
    static final LuaScript ACQUIRE = new LuaScript("acquire", """
            local owner = redis.call('HGET', KEYS[1], 'owner')
            if owner == ARGV[1] then
              local token = tonumber(redis.call('HGET', KEYS[1], 'token'))
              local floor = tonumber(ARGV[6])
              if floor > token then
                token = floor
                redis.call('HSET', KEYS[1], 'token', floor)
                if floor > tonumber(redis.call('GET', KEYS[2]) or '0') then redis.call('SET', KEYS[2], floor) end
              end
              redis.call('PEXPIRE', KEYS[1], ARGV[3])
              return {1, token}
            end
            if not owner then
              local turn = redis.call('GET', KEYS[4])
              if (not turn) or turn == ARGV[4] then
                local token = redis.call('INCR', KEYS[2])
                local now = redis.call('TIME')
                local clock = tonumber(now[1]) * 1000000 + tonumber(now[2])
                if clock > token then
                  token = clock
                  redis.call('SET', KEYS[2], token)
                end
                redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'holder', ARGV[2], 'token', token)
                redis.call('PEXPIRE', KEYS[1], ARGV[3])
                if turn then redis.call('DEL', KEYS[4]) end
                redis.call('ZREM', KEYS[3], ARGV[4])
                return {1, token}
              end
            end
            if not redis.call('ZSCORE', KEYS[3], ARGV[4]) then
              local now = redis.call('TIME')
              redis.call('ZADD', KEYS[3], tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000), ARGV[4])
            end
            redis.call('PEXPIRE', KEYS[3], ARGV[5])
            if owner then
              return {0, redis.call('PTTL', KEYS[1])}
            end
            return {0, redis.call('PTTL', KEYS[4])}
            """);

    /**
     * KEYS: lock keys. ARGV: lease ms, then one owner per key. Extends the lease of each key still held by
     * its owner; returns the 1-based positions renewed.
     */
    static final LuaScript RENEW = new LuaScript("renew", """
            local renewed = {}
            for i = 1, #KEYS do
              if redis.call('HGET', KEYS[i], 'owner') == ARGV[i + 1] then
                redis.call('PEXPIRE', KEYS[i], ARGV[1])
                renewed[#renewed + 1] = i
              end
            end
            return renewed
            """);

    /**
     * KEYS: lock, queue, turn. ARGV: mode, owner or client id, wake channel prefix, hand-off ms.
     * Modes: {@code release} frees the lock if the owner holds it; {@code force} frees it whoever holds it;
     * {@code pass} gives up a hand-off reservation of a client that no longer waits. Then it wakes the
     * first queued client that is still subscribed (PUBLISH to a shard channel counts its receivers),
     * dropping the ones that are not, and reserves the lock for it for the hand-off time. Returns 1 if it
     * freed the lock (or passed the turn), else 0.
     */
    static final LuaScript RELEASE = new LuaScript("release", """
            local token
            if ARGV[1] == 'release' then
              if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[2] then return 0 end
              token = redis.call('HGET', KEYS[1], 'token')
              redis.call('DEL', KEYS[1])
            elseif ARGV[1] == 'force' then
              token = redis.call('HGET', KEYS[1], 'token')
              if not token then return 0 end
              redis.call('DEL', KEYS[1])
            else
              if redis.call('GET', KEYS[3]) ~= ARGV[2] then return 0 end
              redis.call('DEL', KEYS[3])
              if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
              token = 'pass'
            end
            for i = 1, 64 do
              local first = redis.call('ZRANGE', KEYS[2], 0, 0)
              if #first == 0 then break end
              redis.call('ZREM', KEYS[2], first[1])
              if redis.call('SPUBLISH', ARGV[3] .. first[1], token) > 0 then
                if tonumber(ARGV[4]) > 0 then redis.call('SET', KEYS[3], first[1], 'PX', ARGV[4]) end
                break
              end
            end
            return 1
            """);

    /** KEYS: lock, token. Returns {owner, holder, token, pttl, last token}; nils where absent. */
    static final LuaScript INSPECT = new LuaScript("inspect", """
            local h = redis.call('HMGET', KEYS[1], 'owner', 'holder', 'token')
            return {h[1], h[2], h[3], redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[2])}
            """);

    /** Every script, for loading them ahead of use. */
    static final java.util.List<LuaScript> ALL = java.util.List.of(ACQUIRE, RENEW, RELEASE, INSPECT);

    final String name;
    final String source;
    final String sha;
    /** Calls sent by this process, for tests and benchmarks. */
    final LongAdder calls = new LongAdder();
    /** Of those, the ones the server did not know the script for and that were sent again with its source. */
    static final LongAdder RELOADS = new LongAdder();

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha = sha1(source);
    }

    /** Runs the script (by digest; on NOSCRIPT, by source, which loads it) and completes with its reply. */
    <T> CompletableFuture<T> run(RedisClusterAsyncCommands<String, String> commands, ScriptOutputType type, String[] keys,
                                 String... args) {
        calls.increment();
        CompletableFuture<T> bySha = commands.<T>evalsha(sha, type, keys, args).toCompletableFuture();
        return bySha.handle((reply, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(reply);
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof RedisNoScriptException
                    || (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"))) {
                RELOADS.increment();
                return commands.<T>eval(source, type, keys, args).toCompletableFuture();
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(f -> f);
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", e);
        }
    }
}
