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
 * ({@code {name}}), so each call runs on one Cluster slot, atomically. Leases are {@code PX} expiries, so the
 * server's clock decides expiry.
 *
 * <p>Keys of the lock called N under prefix P: {@code P{N}}, a string that expires with the lease: a JSON object,
 * either a hold {@code {"o": owner, "h": holder, "t": "token"}} (with {@code "a": attempt} under Redlock, below) or, for a short time after a release woke a
 * waiting client, that client's reservation {@code {"r": client}}, either with {@code "q": 1} when clients may be
 * queued; {@code P{N}:token}, the fencing counter, kept forever so tokens never repeat; {@code P{N}:queue}, a
 * sorted set of waiting client ids by arrival (the server's clock). Wake-ups go to the shard channel
 * {@code P{N}:wake:CLIENT}, one per waiting client.
 *
 * <p>Commands an uncontended acquire + release runs, the script calls included: acquire 5 ({@code EVALSHA},
 * {@code GET} of the lock, {@code TIME}, {@code SET ... GET} of the counter, {@code SET ... PX} of the lock),
 * release 3 ({@code EVALSHA}, {@code GET}, {@code DEL}). The queue is touched only when clients may be queued
 * ({@code "q"}, or a client that may be queued itself), so a lock nobody waits for costs no queue commands.
 */
final class LuaScript {

    /**
     * KEYS: lock, token, queue. ARGV: owner, holder, lease ms, client id, queue ttl ms, floor, queued (1 if this
     * client may be in the queue: it has waited for the lock lately), and optionally the attempt: Redlock numbers
     * its attempts (increasing within a client) and a hold remembers the latest attempt that created or re-granted
     * it, so that a give-back of an earlier attempt of the same owner, delayed or retried, cannot free it.
     * Returns {1, token} if granted (the same token when the owner already holds it), else {0, ms until the
     * holder's lease or the hand-off reservation ends}. A refused client joins the queue (keeping its place) and
     * marks the lock as waited for. A new token is one more than the counter, and at least the server's clock in
     * microseconds, so a master promoted after losing recent writes still issues tokens above the lost ones. A
     * positive floor on a re-grant raises the token and counter to it (Redlock's second round).
     */
    static final LuaScript ACQUIRE = new LuaScript("acquire", """
            local value = redis.call('GET', KEYS[1])
            local lock = value and cjson.decode(value)
            if lock and lock.o == ARGV[1] then
              if ARGV[8] and (not lock.a or tonumber(ARGV[8]) > tonumber(lock.a)) then lock.a = ARGV[8] end
              local floor = tonumber(ARGV[6])
              if floor > tonumber(lock.t) then
                lock.t = ARGV[6]
                if floor > tonumber(redis.call('GET', KEYS[2]) or '0') then redis.call('SET', KEYS[2], ARGV[6]) end
              end
              redis.call('SET', KEYS[1], cjson.encode(lock), 'PX', ARGV[3])
              return {1, tonumber(lock.t)}
            end
            if (not lock) or lock.r == ARGV[4] then
              local now = redis.call('TIME')
              local token = tonumber(now[1]) * 1000000 + tonumber(now[2])
              local last = tonumber(redis.call('SET', KEYS[2], token, 'GET') or '0')
              if last >= token then
                token = last + 1
                redis.call('SET', KEYS[2], token)
              end
              local hold = {o = ARGV[1], h = ARGV[2], t = string.format('%d', token), a = ARGV[8]}
              if lock or ARGV[7] == '1' then
                if not lock then redis.call('ZREM', KEYS[3], ARGV[4]) end
                hold.q = 1
              end
              redis.call('SET', KEYS[1], cjson.encode(hold), 'PX', ARGV[3])
              return {1, token}
            end
            if not redis.call('ZSCORE', KEYS[3], ARGV[4]) then
              local now = redis.call('TIME')
              redis.call('ZADD', KEYS[3], tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000), ARGV[4])
            end
            redis.call('PEXPIRE', KEYS[3], ARGV[5])
            if not lock.q then
              lock.q = 1
              redis.call('SET', KEYS[1], cjson.encode(lock), 'KEEPTTL')
            end
            return {0, redis.call('PTTL', KEYS[1])}
            """);

    /**
     * KEYS: lock keys. ARGV: lease ms, then one owner per key. Extends the lease of each key still held by
     * its owner; returns the 1-based positions renewed.
     */
    static final LuaScript RENEW = new LuaScript("renew", """
            local renewed = {}
            for i = 1, #KEYS do
              local value = redis.call('GET', KEYS[i])
              if value and cjson.decode(value).o == ARGV[i + 1] then
                redis.call('PEXPIRE', KEYS[i], ARGV[1])
                renewed[#renewed + 1] = i
              end
            end
            return renewed
            """);

    /**
     * KEYS: lock, queue. ARGV: mode, owner or client id, wake channel prefix, hand-off ms, and optionally an
     * attempt. Modes: {@code release} frees the lock if the owner holds it (with an attempt: only if no later
     * attempt of the owner created or re-granted the hold, see {@link #ACQUIRE}); {@code force} frees it whoever holds it;
     * {@code pass} gives up a hand-off reservation of a client that no longer waits. Then, if clients may be
     * queued, it wakes the first queued client that is still subscribed (PUBLISH to a shard channel counts its
     * receivers), dropping the ones that are not, and reserves the lock for it for the hand-off time. Returns 1
     * if it freed the lock (or passed the turn), else 0.
     */
    static final LuaScript RELEASE = new LuaScript("release", """
            local value = redis.call('GET', KEYS[1])
            if not value then return 0 end
            local lock = cjson.decode(value)
            local payload
            if ARGV[1] == 'release' then
              if lock.o ~= ARGV[2] then return 0 end
              if ARGV[5] and lock.a and tonumber(lock.a) > tonumber(ARGV[5]) then return 0 end
              payload = lock.t
            elseif ARGV[1] == 'force' then
              if not lock.o then return 0 end
              payload = lock.t
            else
              if lock.r ~= ARGV[2] then return 0 end
              payload = 'pass'
            end
            if lock.q then
              for i = 1, 64 do
                local first = redis.call('ZRANGE', KEYS[2], 0, 0)
                if #first == 0 then break end
                redis.call('ZREM', KEYS[2], first[1])
                if redis.call('SPUBLISH', ARGV[3] .. first[1], payload) > 0 then
                  if tonumber(ARGV[4]) > 0 then
                    redis.call('SET', KEYS[1], cjson.encode({r = first[1], q = 1}), 'PX', ARGV[4])
                    return 1
                  end
                  break
                end
              end
            end
            redis.call('DEL', KEYS[1])
            return 1
            """);

    /** KEYS: lock, token. Returns {owner, holder, token, pttl, last token}; nils where absent. */
    static final LuaScript INSPECT = new LuaScript("inspect", """
            local value = redis.call('GET', KEYS[1])
            local lock = value and cjson.decode(value) or {}
            return {lock.o or false, lock.h or false, lock.t or false, redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[2])}
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
