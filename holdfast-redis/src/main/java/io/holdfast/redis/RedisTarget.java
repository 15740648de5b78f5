package io.holdfast.redis;

import io.holdfast.Durations;
import io.holdfast.Uris;
import io.lettuce.core.RedisURI;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A parsed Holdfast Redis URI: which deployment, the Lettuce {@link RedisURI}s to connect to, and
 * Holdfast's own query parameters (removed before Lettuce sees the URI).
 *
 * <ul>
 *   <li>{@code redis://[[user]:password@]host[:port][/db]} and {@code rediss://} (TLS), as Lettuce spells them;
 *       {@code redis-socket:///path} too</li>
 *   <li>{@code redis-sentinel://[[user]:password@]host[:port][,host[:port]...][/db]?sentinelMasterId=NAME}
 *       and {@code rediss-sentinel://}, as Lettuce spells them</li>
 *   <li>{@code redis-cluster://[[user]:password@]host:port[,host:port...]} and {@code rediss-cluster://}: Redis
 *       Cluster seed nodes (Holdfast's scheme; Lettuce has none)</li>
 *   <li>{@code redlock://[[user]:password@]host:port,host:port,...} and {@code redlocks://} (TLS): Redlock over
 *       independent masters (Holdfast's scheme)</li>
 * </ul>
 */
final class RedisTarget {
    enum Mode { STANDALONE, SENTINEL, CLUSTER, REDLOCK }

    static final List<String> SCHEMES = List.of("redis://", "rediss://", "redis-socket://", "redis-sentinel://",
            "rediss-sentinel://", "redis-cluster://", "rediss-cluster://", "redlock://", "redlocks://");

    static final String DEFAULT_PREFIX = "holdfast:";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration DEFAULT_MAX_POLL = Duration.ofSeconds(2);
    static final Duration DEFAULT_HANDOFF = Duration.ofMillis(500);
    static final Duration DEFAULT_WAIT_TIMEOUT = Duration.ofSeconds(1);
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.:\\-]{1,64}");
    private static final Pattern SEED = Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9_.\\-]+)(:\\d{1,5})?");
    private static final Pattern HOST = Pattern.compile("\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9_.\\-]+");
    /** Holdfast's own parameters, removed before Lettuce sees the URI. */
    static final List<String> OURS = List.of("prefix", "maxPoll", "handoff", "waitReplicas", "waitTimeout");
    /** The parameters Lettuce reads ({@code RedisURI.PARAMETER_NAME_*}); it ignores any other silently. */
    static final List<String> LETTUCE = List.of("timeout", "database", "db", "sentinelMasterId", "clientName", "libraryName",
            "libraryVersion", "verifyPeer");
    private static final String PARAMS = String.join(", ", OURS) + ", " + String.join(", ", LETTUCE);
    private static final String FORMS = "redis://[[user]:password@]host[:port][/db], rediss://..., redis-socket:///path, "
            + "redis-sentinel://host[:port][,host[:port]...][/db]?sentinelMasterId=NAME, redis-cluster://host:port[,host:port...], "
            + "redlock://host:port,host:port,host:port[,...]; parameters: " + PARAMS
            + " (prefix: 1 to 64 of A-Z a-z 0-9 _ . : -)";

    final Mode mode;
    final List<RedisURI> uris;
    final String address;
    final String prefix;
    final Duration timeout;
    final Duration maxPoll;
    final Duration handoff;
    final int waitReplicas;
    final Duration waitTimeout;

    private RedisTarget(Mode mode, List<RedisURI> uris, String address, Map<String, String> ours, Duration timeout) {
        this.mode = mode;
        this.uris = uris;
        this.address = address;
        this.timeout = timeout;
        this.prefix = ours.getOrDefault("prefix", DEFAULT_PREFIX);
        if (!PREFIX.matcher(prefix).matches()) {
            throw bad(prefix, "prefix '" + prefix + "' is not allowed; allowed: 1 to 64 characters from A-Z a-z 0-9 _ . : -");
        }
        this.maxPoll = duration(ours, "maxPoll", DEFAULT_MAX_POLL, Duration.ofMillis(50), Duration.ofMinutes(1));
        this.handoff = duration(ours, "handoff", mode == Mode.REDLOCK ? Duration.ZERO : DEFAULT_HANDOFF, Duration.ZERO, Duration.ofSeconds(10));
        if (mode == Mode.REDLOCK && !handoff.isZero()) {
            throw bad(null, "handoff is not supported on redlock:// (each master would reserve the lock for its own next waiter); allowed: 0");
        }
        this.waitTimeout = duration(ours, "waitTimeout", DEFAULT_WAIT_TIMEOUT, Duration.ofMillis(1), Duration.ofMinutes(1));
        String replicas = ours.getOrDefault("waitReplicas", "0");
        try {
            this.waitReplicas = Integer.parseInt(replicas);
        } catch (NumberFormatException e) {
            throw bad(null, "waitReplicas '" + replicas + "' is not a number; allowed: 0 to 16");
        }
        if (waitReplicas < 0 || waitReplicas > 16) {
            throw bad(null, "waitReplicas " + waitReplicas + " is not allowed; allowed: 0 to 16");
        }
        if (waitReplicas > 0 && (mode == Mode.CLUSTER || mode == Mode.REDLOCK)) {
            throw bad(null, "waitReplicas is supported on redis:// and redis-sentinel:// URIs only");
        }
    }

    /** The settings of a store on an application's client: Holdfast's defaults, with {@code prefix}. */
    static RedisTarget ofClient(RedisURI uri, String prefix) {
        Mode mode = uri != null && !uri.getSentinels().isEmpty() ? Mode.SENTINEL : Mode.STANDALONE;
        String address = uri == null ? "the RedisClient's default URI" : describe(mode, uri);
        return new RedisTarget(mode, uri == null ? List.of() : List.of(uri), address, Map.of("prefix", prefix), DEFAULT_TIMEOUT);
    }

    static boolean accepts(String uri) {
        if (uri == null) {
            return false;
        }
        String lower = uri.toLowerCase(Locale.ROOT);
        return SCHEMES.stream().anyMatch(lower::startsWith);
    }

    /**
     * Parses {@code uri}.
     *
     * @throws IllegalArgumentException saying what is allowed
     */
    static RedisTarget parse(String uri) {
        if (!accepts(uri)) {
            throw new IllegalArgumentException("'" + Uris.redact(uri) + "' is not a Redis URI; allowed: " + String.join(", ", SCHEMES));
        }
        String scheme = uri.substring(0, uri.indexOf("://")).toLowerCase(Locale.ROOT);
        String rest = uri.substring(scheme.length() + 3);
        String query = "";
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        Map<String, String> ours = new LinkedHashMap<>();
        List<String> theirs = new ArrayList<>();
        Duration timeout = DEFAULT_TIMEOUT;
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            if (OURS.contains(key)) {
                if (ours.put(key, value) != null) {
                    throw bad(uri, "parameter '" + key + "' is given twice");
                }
            } else if (LETTUCE.contains(key)) {
                if (key.equals("timeout")) {
                    timeout = parseDuration(uri, "timeout", value);
                }
                theirs.add(pair);
            } else {
                throw unknown(uri, key);
            }
        }
        String lettuceQuery = theirs.isEmpty() ? "" : "?" + String.join("&", theirs);
        switch (scheme) {
            case "redis-cluster", "rediss-cluster", "redlock", "redlocks" -> {
                boolean tls = scheme.startsWith("rediss") || scheme.equals("redlocks");
                Mode mode = scheme.endsWith("cluster") ? Mode.CLUSTER : Mode.REDLOCK;
                return multiSeed(uri, mode, tls, rest, lettuceQuery, ours, timeout);
            }
            default -> {
                if (!scheme.equals("redis-socket")) {
                    checkHosts(uri, rest, scheme.endsWith("sentinel"));
                }
                RedisURI parsed;
                try {
                    parsed = RedisURI.create(scheme + "://" + rest + lettuceQuery);
                } catch (RuntimeException e) {
                    throw bad(uri, "cannot read it (" + e.getMessage() + ")");
                }
                parsed.setTimeout(timeout);
                Mode mode = scheme.endsWith("sentinel") ? Mode.SENTINEL : Mode.STANDALONE;
                if (mode == Mode.SENTINEL && (parsed.getSentinelMasterId() == null || parsed.getSentinelMasterId().isEmpty())) {
                    throw bad(uri, "a Sentinel URI needs the master's name: redis-sentinel://host:port[,host:port]/?sentinelMasterId=NAME");
                }
                return new RedisTarget(mode, List.of(parsed), describe(mode, parsed), ours, timeout);
            }
        }
    }

    private static RedisTarget multiSeed(String uri, Mode mode, boolean tls, String rest, String lettuceQuery,
                                         Map<String, String> ours, Duration timeout) {
        String userInfo = "";
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            userInfo = rest.substring(0, at + 1);
            rest = rest.substring(at + 1);
        }
        if (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        String example = mode == Mode.CLUSTER ? "redis-cluster://host:port,host:port" : "redlock://host:port,host:port,host:port";
        if (rest.isEmpty() || rest.contains("/")) {
            throw bad(uri, "expected " + example + " (seed nodes separated by commas, no database)");
        }
        List<RedisURI> uris = new ArrayList<>();
        List<String> hosts = new ArrayList<>();
        for (String seed : rest.split(",", -1)) {
            if (!SEED.matcher(seed).matches()) {
                checkHostPort(uri, seed);
                throw bad(uri, "'" + seed + "' is not host:port; expected " + example);
            }
            checkHostPort(uri, seed);
            try {
                RedisURI one = RedisURI.create((tls ? "rediss://" : "redis://") + userInfo + seed + lettuceQuery);
                one.setTimeout(timeout);
                uris.add(one);
            } catch (RuntimeException e) {
                throw bad(uri, "cannot read '" + seed + "' (" + e.getMessage() + ")");
            }
            hosts.add(seed.contains(":") ? seed : seed + ":" + RedisURI.DEFAULT_REDIS_PORT);
        }
        if (mode == Mode.REDLOCK && uris.size() < 3) {
            throw bad(uri, "Redlock needs at least 3 independent masters (5 is usual), got " + uris.size());
        }
        return new RedisTarget(mode, List.copyOf(uris), String.join(",", hosts), ours, timeout);
    }

    /** The hosts of a redis://, rediss:// or redis-sentinel:// URI: each one named, each port 1 to 65535. */
    private static void checkHosts(String uri, String rest, boolean several) {
        int at = rest.lastIndexOf('@');
        String hosts = at >= 0 ? rest.substring(at + 1) : rest;
        int slash = hosts.indexOf('/');
        if (slash >= 0) {
            hosts = hosts.substring(0, slash);
        }
        if (hosts.isEmpty()) {
            throw bad(uri, "no host is given");
        }
        if (!several && hosts.contains(",")) {
            throw bad(uri, "'" + hosts + "' lists several hosts; only redis-sentinel://, redis-cluster:// and redlock:// take several");
        }
        for (String hostPort : hosts.split(",", -1)) {
            checkHostPort(uri, hostPort);
        }
    }

    private static void checkHostPort(String uri, String hostPort) {
        String host = hostPort;
        String port = null;
        int colon = hostPort.lastIndexOf(':');
        if (colon >= 0 && hostPort.indexOf(']') < colon) {
            host = hostPort.substring(0, colon);
            port = hostPort.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw bad(uri, "no host is given in '" + hostPort + "'");
        }
        if (!HOST.matcher(host).matches()) {
            throw bad(uri, "host '" + hostPort + "' is not a host name, IPv4 address or [IPv6] address");
        }
        if (port != null) {
            int number;
            try {
                number = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                number = -1;
            }
            if (number < 1 || number > 65535) {
                throw bad(uri, "port in '" + hostPort + "' is not a number from 1 to 65535");
            }
        }
    }

    private static IllegalArgumentException unknown(String uri, String key) {
        List<String> all = new ArrayList<>(OURS);
        all.addAll(LETTUCE);
        String near = Uris.nearMiss(key, all);
        return bad(uri, "parameter '" + key + "' is unknown" + (near == null ? "" : " (did you mean " + near + "?)")
                + "; allowed: " + PARAMS + ", each spelt exactly so");
    }

    private static String describe(Mode mode, RedisURI u) {
        StringBuilder s = new StringBuilder();
        if (mode == Mode.SENTINEL) {
            s.append(u.getSentinelMasterId()).append('@');
            List<String> sentinels = new ArrayList<>();
            u.getSentinels().forEach(x -> sentinels.add(x.getHost() + ":" + x.getPort()));
            s.append(String.join(",", sentinels));
        } else if (u.getSocket() != null) {
            s.append(u.getSocket());
        } else {
            s.append(u.getHost()).append(':').append(u.getPort());
        }
        if (u.getDatabase() != 0) {
            s.append('/').append(u.getDatabase());
        }
        return s.toString();
    }

    String backend() {
        return switch (mode) {
            case STANDALONE -> "redis";
            case SENTINEL -> "redis-sentinel";
            case CLUSTER -> "redis-cluster";
            case REDLOCK -> "redlock";
        };
    }

    private static Duration duration(Map<String, String> ours, String key, Duration fallback, Duration min, Duration max) {
        String value = ours.get(key);
        if (value == null) {
            return fallback;
        }
        Duration d = parseDuration(null, key, value);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw bad(null, key + " " + value + " is out of range; allowed: " + Durations.format(min) + " to " + Durations.format(max));
        }
        return d;
    }

    private static Duration parseDuration(String uri, String key, String value) {
        if (value.equals("0")) {
            return Duration.ZERO;
        }
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw bad(uri, key + ": " + e.getMessage());
        }
    }

    private static IllegalArgumentException bad(String uri, String detail) {
        return new IllegalArgumentException((uri == null ? "Redis URI is not valid: " : "Redis URI '" + Uris.redact(uri) + "' is not valid: ")
                + detail + "; allowed: " + FORMS);
    }
}
