package io.holdfast.zookeeper;

import io.holdfast.Durations;
import io.holdfast.Uris;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A parsed {@code zookeeper://[user:password@]host[:port][,host[:port]...][/base/path][?connectTimeout=5s&tickTime=2s]}.
 * The path is where lock nodes live (default {@value #DEFAULT_BASE}); the credentials, if any, are
 * ZooKeeper digest credentials, and every node Holdfast creates then carries an ACL for them alone.
 */
final class ZooKeeperUri {
    static final String SCHEME = "zookeeper://";
    static final String DEFAULT_BASE = "/holdfast";
    private static final int DEFAULT_PORT = 2181;
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.\\-]+|\\[[0-9A-Fa-f:.]+]");
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_\\-.:@+=#]+");
    private static final String URI_FORM = "zookeeper://[user:password@]host[:port][,host[:port]...][/base/path][?connectTimeout=DURATION&tickTime=DURATION]";

    /** {@code host:port,host:port}, as the ZooKeeper client takes it. */
    final String connectString;
    /** Absolute path under which lock directories live, without a trailing slash. */
    final String basePath;
    /** {@code user:password} for the digest scheme, or null. */
    final String digest;
    final String user;
    final Duration connectTimeout;
    /** The servers' tickTime: the leader pings its followers every half of it. */
    final Duration tickTime;
    /** Where the store is, without credentials: {@code host:port,host:port/base}. */
    final String address;

    private ZooKeeperUri(String connectString, String basePath, String user, String digest, Duration connectTimeout, Duration tickTime) {
        this.tickTime = tickTime;
        this.connectString = connectString;
        this.basePath = basePath;
        this.user = user;
        this.digest = digest;
        this.connectTimeout = connectTimeout;
        this.address = connectString + basePath;
    }

    static boolean accepts(String uri) {
        return uri != null && uri.startsWith(SCHEME);
    }

    /**
     * Parses a URI.
     *
     * @throws IllegalArgumentException saying which part is wrong and what is allowed
     */
    static ZooKeeperUri parse(String uri) {
        if (!accepts(uri)) {
            throw bad(uri, "it does not start with " + SCHEME);
        }
        String rest = uri.substring(SCHEME.length());
        Map<String, String> params = new LinkedHashMap<>();
        int q = rest.indexOf('?');
        if (q >= 0) {
            for (String pair : rest.substring(q + 1).split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    throw bad(uri, "parameter '" + pair + "' is not NAME=VALUE");
                }
                params.put(pair.substring(0, eq), decode(pair.substring(eq + 1)));
            }
            rest = rest.substring(0, q);
        }
        for (String name : params.keySet()) {
            if (!name.equals("connectTimeout") && !name.equals("tickTime")) {
                throw bad(uri, "parameter '" + name + "' is unknown; the only ones are connectTimeout (how long to wait for a server, "
                        + "default 5s) and tickTime (the servers' tickTime, default 2s), and there is no sessionTimeout: each hold's "
                        + "session timeout is its lease");
            }
        }
        String user = null;
        String digest = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String info = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = info.indexOf(':');
            if (colon <= 0 || colon == info.length() - 1) {
                throw bad(uri, "credentials must be user:password (digest scheme, percent-encoded where needed)");
            }
            user = decode(info.substring(0, colon));
            digest = user + ":" + decode(info.substring(colon + 1));
        }
        int slash = rest.indexOf('/');
        String hosts = slash < 0 ? rest : rest.substring(0, slash);
        String path = slash < 0 ? "" : rest.substring(slash);
        String connectString = hosts(uri, hosts);
        String basePath = basePath(uri, path);
        Duration connectTimeout = Duration.ofSeconds(5);
        if (params.containsKey("connectTimeout")) {
            try {
                connectTimeout = Durations.parse(params.get("connectTimeout"));
            } catch (IllegalArgumentException e) {
                throw bad(uri, "connectTimeout: " + e.getMessage());
            }
            if (connectTimeout.compareTo(Duration.ofMillis(100)) < 0 || connectTimeout.compareTo(Duration.ofMinutes(5)) > 0) {
                throw bad(uri, "connectTimeout " + Durations.format(connectTimeout) + " is out of range; allowed: 100ms to 5m");
            }
        }
        Duration tickTime = Duration.ofSeconds(2);
        if (params.containsKey("tickTime")) {
            try {
                tickTime = Durations.parse(params.get("tickTime"));
            } catch (IllegalArgumentException e) {
                throw bad(uri, "tickTime: " + e.getMessage());
            }
            if (tickTime.compareTo(Duration.ofMillis(10)) < 0 || tickTime.compareTo(Duration.ofMinutes(1)) > 0) {
                throw bad(uri, "tickTime " + Durations.format(tickTime) + " is out of range; allowed: 10ms to 1m");
            }
        }
        return new ZooKeeperUri(connectString, basePath, user, digest, connectTimeout, tickTime);
    }

    private static String hosts(String uri, String hosts) {
        if (hosts.isEmpty()) {
            throw bad(uri, "no host is given");
        }
        List<String> out = new ArrayList<>();
        for (String hp : hosts.split(",", -1)) {
            String host = hp;
            int port = DEFAULT_PORT;
            int colon = hp.lastIndexOf(':');
            if (colon > 0 && hp.indexOf(']') < colon) {
                host = hp.substring(0, colon);
                try {
                    port = Integer.parseInt(hp.substring(colon + 1));
                } catch (NumberFormatException e) {
                    port = -1;
                }
                if (port < 1 || port > 65535) {
                    throw bad(uri, "port in '" + hp + "' is not a number from 1 to 65535");
                }
            }
            if (!HOST.matcher(host).matches()) {
                throw bad(uri, "host '" + hp + "' is not a host name, IPv4 address or [IPv6] address");
            }
            out.add(host + ":" + port);
        }
        return String.join(",", out);
    }

    private static String basePath(String uri, String path) {
        if (path.isEmpty() || path.equals("/")) {
            return DEFAULT_BASE;
        }
        String trimmed = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        String[] segments = trimmed.substring(1).split("/", -1);
        for (String s : segments) {
            if (!SEGMENT.matcher(s).matches() || s.equals(".") || s.equals("..")) {
                throw bad(uri, "base path '" + path + "' has a bad segment '" + s + "'; allowed: segments of A-Z a-z 0-9 - _ . : @ + = #, "
                        + "not . or ..");
            }
        }
        if (segments[0].equals("zookeeper")) {
            throw bad(uri, "base path '" + path + "' is inside /zookeeper, which ZooKeeper reserves");
        }
        return trimmed;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static IllegalArgumentException bad(String uri, String problem) {
        return new IllegalArgumentException("ZooKeeper URI '" + Uris.redact(uri) + "' is not valid: " + problem + "; allowed: " + URI_FORM);
    }

    @Override
    public String toString() {
        return SCHEME + (user == null ? "" : user + ":***@") + address;
    }
}
