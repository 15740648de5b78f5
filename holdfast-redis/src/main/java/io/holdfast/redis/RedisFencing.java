package io.holdfast.redis;

import io.holdfast.Hold;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The resource side of fencing for data kept in a Redis hash: {@link #hset} writes fields only if the hash has seen
 * no fencing token greater than the writer's, and stores the writer's token in a field of the same hash, in one Lua
 * script, so the check and the write are atomic. A holder that was paused past its lease (a GC pause, a stopped VM)
 * and writes after a newer holder has written is refused by Redis itself, however late its write arrives;
 * {@link Hold#checkValid()} alone cannot promise that.
 *
 * <pre>{@code
 * RedisFencing fencing = RedisFencing.using(connection.sync());   // the application's Lettuce connection
 * try (Hold hold = holdfast.lock("stock/" + item).acquire(Duration.ofSeconds(5))) {
 *     int qty = Integer.parseInt(connection.sync().hget("stock:" + item, "qty"));
 *     boolean applied = fencing.hset(hold, "stock:" + item, Map.of("qty", Integer.toString(qty - 1)));
 * }
 * }</pre>
 *
 * <p>A write with the token the hash already has (the same hold writing again, a re-entered hold, a retried call
 * whose reply was lost) applies; only a lower token is refused. {@link #oncePerToken()} refuses equal tokens too, so
 * that each token writes a hash at most once. A hash without the fence field (or no hash at all) accepts any token
 * and gets the field. Tokens are compared as 64-bit integers, exactly (not as Lua's doubles).
 *
 * <p>Works on one Redis, Sentinel's master and a Cluster (a call touches one key, so one slot): pass the sync
 * commands of a standalone or cluster connection. Lettuce's exceptions pass through unchanged. Immutable and
 * thread-safe if the connection is (Lettuce's are).
 *
 * <p>Deleting the hash, or its expiry or eviction ({@code maxmemory-policy}), forgets its fence: a stale holder's
 * write is accepted again. Fence a hash with the tokens of one lock name only: tokens of different names are not
 * ordered with each other. As with any Redis write, a failover that loses acknowledged writes can lose the fence.
 */
public final class RedisFencing {
    /**
     * KEYS: the hash. ARGV: fence field, token (decimal, no leading zeros), '1' if an equal token is refused, then
     * field, value pairs. Returns 1 if written, 0 if refused.
     */
    private static final String SCRIPT = """
            local seen = redis.call('HGET', KEYS[1], ARGV[1])
            if seen then
              if seen ~= '0' and not string.match(seen, '^[1-9][0-9]*$') then
                return redis.error_reply('ERR field ' .. ARGV[1] .. ' of ' .. KEYS[1] .. ' holds ' .. seen .. ', not a fencing token')
              end
              local token = ARGV[2]
              if #seen > #token or (#seen == #token and seen > token) then return 0 end
              if seen == token and ARGV[3] == '1' then return 0 end
            end
            redis.call('HSET', KEYS[1], ARGV[1], ARGV[2], unpack(ARGV, 4))
            return 1
            """;
    private static final String SHA = sha1(SCRIPT);
    /** Field, value pairs per call: Lua's unpack is bounded by its C stack (LUAI_MAXCSTACK, 8000 slots). */
    static final int MAX_FIELDS = 3_000;

    private final RedisClusterCommands<String, String> commands;
    private final String fenceField;
    private final boolean oncePerToken;

    private RedisFencing(RedisClusterCommands<String, String> commands, String fenceField, boolean oncePerToken) {
        this.commands = commands;
        this.fenceField = fenceField;
        this.oncePerToken = oncePerToken;
    }

    /**
     * Fenced writes through {@code commands} ({@code connection.sync()} of a standalone, Sentinel or cluster
     * connection, which the caller keeps and closes), keeping the token in the field {@code fence} of each hash.
     */
    public static RedisFencing using(RedisClusterCommands<String, String> commands) {
        return using(commands, "fence");
    }

    /**
     * As {@link #using(RedisClusterCommands)}, keeping the token in the field {@code fenceField}.
     *
     * @throws IllegalArgumentException if {@code fenceField} is empty
     */
    public static RedisFencing using(RedisClusterCommands<String, String> commands, String fenceField) {
        Objects.requireNonNull(commands, "commands");
        if (Objects.requireNonNull(fenceField, "fenceField").isEmpty()) {
            throw new IllegalArgumentException("the fence field is empty; allowed: any non-empty field name");
        }
        return new RedisFencing(commands, fenceField, false);
    }

    /**
     * The same writes, applied only if the hash's fence is strictly lower than the token: each token writes a hash
     * at most once, so a second write with the same token (a re-entered hold, a retried call) is refused.
     */
    public RedisFencing oncePerToken() {
        return new RedisFencing(commands, fenceField, true);
    }

    /**
     * Sets {@code fields} of the hash {@code key} and its fence field to {@code hold}'s fencing token, if the fence
     * is not greater than that token (not equal either, after {@link #oncePerToken()}). No fields only raises the
     * fence: a claim made before reading the hash, after which a stale holder cannot write between the read and
     * this holder's write.
     *
     * @return true if written; false if the fence refused the token (nothing was written)
     * @throws IllegalArgumentException if {@code key} is empty, {@code fields} names the fence field or has more
     *         than 3000 entries
     * @throws io.lettuce.core.RedisCommandExecutionException if the key holds something other than a hash, or its
     *         fence field something other than a token
     */
    public boolean hset(Hold hold, String key, Map<String, String> fields) {
        return hset(Objects.requireNonNull(hold, "hold").fencingToken(), key, fields);
    }

    /**
     * {@link #hset(Hold, String, Map)} with the token itself, for code that carries the token rather than the hold.
     *
     * @param token a fencing token (positive)
     */
    public boolean hset(long token, String key, Map<String, String> fields) {
        if (token <= 0) {
            throw new IllegalArgumentException("token " + token + " is not a fencing token; allowed: 1 and above");
        }
        if (Objects.requireNonNull(key, "key").isEmpty()) {
            throw new IllegalArgumentException("the key is empty");
        }
        if (Objects.requireNonNull(fields, "fields").size() > MAX_FIELDS) {
            throw new IllegalArgumentException(fields.size() + " fields in one write; allowed: up to " + MAX_FIELDS);
        }
        List<String> args = new ArrayList<>(3 + 2 * fields.size());
        args.add(fenceField);
        args.add(Long.toString(token));
        args.add(oncePerToken ? "1" : "0");
        for (Map.Entry<String, String> field : fields.entrySet()) {
            String name = Objects.requireNonNull(field.getKey(), "field name");
            if (name.equals(fenceField)) {
                throw new IllegalArgumentException("field '" + name + "' is the fence field; the write sets it to the token");
            }
            args.add(name);
            args.add(Objects.requireNonNull(field.getValue(), () -> "value of field " + name));
        }
        String[] keys = {key};
        String[] values = args.toArray(String[]::new);
        Long written;
        try {
            written = commands.evalsha(SHA, ScriptOutputType.INTEGER, keys, values);
        } catch (RedisCommandExecutionException e) {
            if (!(e instanceof RedisNoScriptException) && (e.getMessage() == null || !e.getMessage().startsWith("NOSCRIPT"))) {
                throw e;
            }
            written = commands.eval(SCRIPT, ScriptOutputType.INTEGER, keys, values); // loads it for the next call
        }
        return written != null && written == 1L;
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "RedisFencing[field " + fenceField + (oncePerToken ? " < token" : " <= token") + "]";
    }
}
