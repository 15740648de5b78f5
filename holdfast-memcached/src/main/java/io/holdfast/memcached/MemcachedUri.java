package io.holdfast.memcached;

import io.holdfast.Durations;
import io.holdfast.Uris;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code memcached://HOST[:PORT][,HOST[:PORT]...][?prefix=P&timeout=D&connectTimeout=D&maxPoll=D]}. The port defaults to
 * 11211; an IPv6 host is written in brackets. Every client of the same locks must list the same servers:
 * the list decides, by consistent hashing, which server keeps each lock.
 */
final class MemcachedUri {
    static final String SCHEME = "memcached://";
    static final int DEFAULT_PORT = 11211;
    static final String DEFAULT_PREFIX = "holdfast:";
    /** Keeps the longest key ({@code prefix + "token:" + 200-character name}) within Memcached's 250 bytes. */
    static final int MAX_PREFIX = 40;
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.:\\-]{1," + MAX_PREFIX + "}");
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.\\-]+|\\[[0-9A-Fa-f:.]+]");
    private static final String FORM = "expected memcached://HOST[:PORT][,HOST[:PORT]...][?prefix=P&timeout=D&connectTimeout=D&maxPoll=D]";
    private static final List<String> PARAMETERS = List.of("prefix", "timeout", "connectTimeout", "maxPoll");
    private static final Duration MIN_TIMEOUT = Duration.ofMillis(100);
    private static final Duration MAX_TIMEOUT = Duration.ofMinutes(1);

    final List<InetSocketAddress> servers;
    final String prefix;
    final Duration timeout;
    final Duration connectTimeout;
    /** The longest pause between two polls of a waiter (Memcached cannot notify). */
    final Duration maxPoll;
    /** The server list as written, for messages. */
    final String address;

    private MemcachedUri(List<InetSocketAddress> servers, String address, String prefix, Duration timeout, Duration connectTimeout,
                         Duration maxPoll) {
        this.servers = servers;
        this.address = address;
        this.prefix = prefix;
        this.timeout = timeout;
        this.connectTimeout = connectTimeout;
        this.maxPoll = maxPoll;
    }

    static boolean accepts(String uri) {
        return uri != null && uri.regionMatches(true, 0, SCHEME, 0, SCHEME.length());
    }

    /**
     * Parses a URI.
     *
     * @throws IllegalArgumentException saying what is allowed
     */
    static MemcachedUri parse(String uri) {
        try {
            return parseParts(uri);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Memcached URI '" + Uris.redact(uri) + "' is not valid: " + e.getMessage(), e);
        }
    }

    private static MemcachedUri parseParts(String uri) {
        if (!accepts(uri)) {
            throw new IllegalArgumentException("not a Memcached URI; " + FORM);
        }
        String rest = uri.substring(SCHEME.length());
        String query = "";
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        if (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        if (rest.contains("@")) {
            throw new IllegalArgumentException("Memcached URIs take no user or password (SASL is not supported); " + FORM);
        }
        if (rest.contains("/")) {
            throw new IllegalArgumentException("Memcached URIs have no path; " + FORM);
        }
        if (rest.isEmpty()) {
            throw new IllegalArgumentException("no server is given; " + FORM);
        }
        List<InetSocketAddress> servers = new ArrayList<>();
        List<String> written = new ArrayList<>();
        for (String part : rest.split(",", -1)) {
            InetSocketAddress server = server(part.trim());
            if (servers.contains(server)) {
                throw new IllegalArgumentException("server " + part + " is listed twice; " + FORM);
            }
            servers.add(server);
            written.add(hostPort(server));
        }

        Map<String, String> params = params(query);
        String prefix = params.getOrDefault("prefix", DEFAULT_PREFIX);
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("prefix '" + prefix + "' is not allowed; allowed: 1 to " + MAX_PREFIX
                    + " characters from A-Z a-z 0-9 _ . : -");
        }
        Duration timeout = duration(params, "timeout", Duration.ofSeconds(1), MIN_TIMEOUT, MAX_TIMEOUT);
        Duration connectTimeout = duration(params, "connectTimeout", Duration.ofSeconds(2), MIN_TIMEOUT, MAX_TIMEOUT);
        Duration maxPoll = duration(params, "maxPoll", Duration.ofMillis(100), Duration.ofMillis(10), Duration.ofSeconds(5));
        return new MemcachedUri(List.copyOf(servers), String.join(",", written), prefix, timeout, connectTimeout, maxPoll);
    }

    private static InetSocketAddress server(String part) {
        if (part.isEmpty()) {
            throw new IllegalArgumentException("empty server in the list; " + FORM);
        }
        String host = part;
        int port = DEFAULT_PORT;
        int colon = part.lastIndexOf(':');
        boolean bracketed = part.startsWith("[");
        if (colon > 0 && (!bracketed || part.lastIndexOf(']') < colon)) {
            host = part.substring(0, colon);
            String p = part.substring(colon + 1);
            try {
                port = Integer.parseInt(p);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("port '" + p + "' of server " + part + " is not a number; allowed: 1 to 65535", e);
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port " + port + " of server " + part + " is not allowed; allowed: 1 to 65535");
            }
        }
        if (!HOST.matcher(host).matches()) {
            throw new IllegalArgumentException("host '" + host + "' is not allowed; allowed: a host name, an IPv4 address, "
                    + "or an IPv6 address in brackets; " + FORM);
        }
        if (bracketed) {
            host = host.substring(1, host.length() - 1);
        }
        return InetSocketAddress.createUnresolved(host, port);
    }

    private static Map<String, String> params(String query) {
        Map<String, String> out = new LinkedHashMap<>();
        if (query.isEmpty()) {
            return out;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            if (!PARAMETERS.contains(key)) {
                String near = Uris.nearMiss(key, PARAMETERS);
                throw new IllegalArgumentException("parameter '" + key + "' is unknown" + (near == null ? "" : " (did you mean " + near + "?)")
                        + "; allowed: " + String.join(", ", PARAMETERS) + ", each spelt exactly so");
            }
            if (out.put(key, value) != null) {
                throw new IllegalArgumentException("parameter '" + key + "' is given twice");
            }
        }
        return out;
    }

    private static Duration duration(Map<String, String> params, String key, Duration fallback, Duration min, Duration max) {
        String text = params.get(key);
        if (text == null) {
            return fallback;
        }
        Duration d = Durations.parse(text);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException(key + " " + Durations.format(d) + " is not allowed; allowed: "
                    + Durations.format(min) + " to " + Durations.format(max));
        }
        return d;
    }

    static String hostPort(InetSocketAddress a) {
        String host = a.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host.toLowerCase(Locale.ROOT)) + ":" + a.getPort();
    }
}
