package io.holdfast.etcd;

import io.holdfast.Durations;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A parsed {@code etcd://} or {@code etcds://} URI:
 * {@code etcd[s]://[USER[:PASSWORD]@]HOST[:PORT][,HOST[:PORT]...][/KEY/PREFIX][?PARAM=VALUE&...]}.
 * The default port is 2379 and the default key prefix {@code holdfast}. Parameters: {@code connectTimeout}
 * and {@code requestTimeout} (durations, default 5s each), and for {@code etcds} {@code ca} (a PEM file of
 * trusted certificates; the JVM's trust store if absent), {@code cert} and {@code key} (a PEM client
 * certificate and its PKCS#8 key, both or neither).
 */
final class EtcdUri {
    static final String PLAIN = "etcd://";
    static final String TLS = "etcds://";
    static final int DEFAULT_PORT = 2379;
    static final String DEFAULT_PREFIX = "holdfast";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    private static final String FORM = "etcd://[user[:password]@]host[:port][,host[:port]...][/key/prefix]"
            + "[?connectTimeout=5s&requestTimeout=5s] (etcds:// for TLS, with optional ca=, cert=, key= PEM files)";

    final boolean tls;
    /** {@code host:port} of each endpoint, in the URI's order. */
    final List<String> endpoints;
    final String user;
    final String password;
    /** Every key this store writes starts with {@code prefix + "/"}. */
    final String prefix;
    final Duration connectTimeout;
    final Duration requestTimeout;
    final Path ca;
    final Path cert;
    final Path key;
    /** Where the store is, without credentials: {@code host:port,host:port/prefix}. */
    final String address;

    private EtcdUri(boolean tls, List<String> endpoints, String user, String password, String prefix,
                    Duration connectTimeout, Duration requestTimeout, Path ca, Path cert, Path key) {
        this.tls = tls;
        this.endpoints = List.copyOf(endpoints);
        this.user = user;
        this.password = password;
        this.prefix = prefix;
        this.connectTimeout = connectTimeout;
        this.requestTimeout = requestTimeout;
        this.ca = ca;
        this.cert = cert;
        this.key = key;
        this.address = String.join(",", endpoints) + "/" + prefix;
    }

    /**
     * The settings of a store on an application's jetcd client: key prefix {@code prefix} (checked as in a URI),
     * time-outs {@code requestTimeout}; no endpoints or credentials of its own.
     */
    static EtcdUri ofClient(String prefix, Duration requestTimeout) {
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        if (!validPrefix(prefix)) {
            throw new IllegalArgumentException("the key prefix '" + prefix + "' is not allowed; allowed: 1 to 100 characters from A-Z a-z 0-9 "
                    + "- _ . : / @ + = # (no leading /, no //)");
        }
        return new EtcdUri(false, List.of("jetcd Client"), null, null, prefix, requestTimeout, requestTimeout, null, null, null);
    }

    static boolean accepts(String uri) {
        if (uri == null) {
            return false;
        }
        String lower = uri.toLowerCase(Locale.ROOT);
        return lower.startsWith(PLAIN) || lower.startsWith(TLS);
    }

    /**
     * Parses {@code uri}.
     *
     * @throws IllegalArgumentException saying what is wrong and which form is expected
     */
    static EtcdUri parse(String uri) {
        if (!accepts(uri)) {
            throw bad(uri, "it does not start with etcd:// or etcds://");
        }
        boolean tls = uri.toLowerCase(Locale.ROOT).startsWith(TLS);
        String rest = uri.substring(tls ? TLS.length() : PLAIN.length());

        String query = "";
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        String path = "";
        int slash = rest.indexOf('/');
        if (slash >= 0) {
            path = rest.substring(slash + 1);
            rest = rest.substring(0, slash);
        }
        String user = null;
        String password = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = userInfo.indexOf(':');
            user = decode(colon >= 0 ? userInfo.substring(0, colon) : userInfo);
            password = colon >= 0 ? decode(userInfo.substring(colon + 1)) : "";
            if (user.isEmpty()) {
                throw bad(uri, "the user name is empty");
            }
        }
        List<String> endpoints = new ArrayList<>();
        for (String hostPort : rest.split(",", -1)) {
            endpoints.add(endpoint(uri, hostPort.trim()));
        }

        String prefix = path.isEmpty() ? DEFAULT_PREFIX : path;
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        if (!validPrefix(prefix)) {
            throw bad(uri, "the key prefix '" + prefix + "' is not allowed; allowed: 1 to 100 characters from A-Z a-z 0-9 "
                    + "and - _ . : / @ + = #, without empty segments");
        }

        Map<String, String> params = params(uri, query);
        Duration connectTimeout = timeout(uri, params.remove("connecttimeout"), "connectTimeout");
        Duration requestTimeout = timeout(uri, params.remove("requesttimeout"), "requestTimeout");
        Path ca = file(uri, params.remove("ca"), "ca");
        Path cert = file(uri, params.remove("cert"), "cert");
        Path key = file(uri, params.remove("key"), "key");
        if (!params.isEmpty()) {
            throw bad(uri, "unknown parameter(s) " + params.keySet() + "; allowed: connectTimeout, requestTimeout, and for etcds ca, cert, key");
        }
        if (!tls && (ca != null || cert != null || key != null)) {
            throw bad(uri, "ca, cert and key need TLS: use etcds://");
        }
        if ((cert == null) != (key == null)) {
            throw bad(uri, "a client certificate needs both cert and key");
        }
        return new EtcdUri(tls, endpoints, user, password, prefix, connectTimeout, requestTimeout, ca, cert, key);
    }

    /** The gRPC endpoint URIs jetcd is given. */
    List<String> grpcEndpoints() {
        List<String> out = new ArrayList<>();
        for (String endpoint : endpoints) {
            out.add((tls ? "https://" : "http://") + endpoint);
        }
        return out;
    }

    private static String endpoint(String uri, String hostPort) {
        if (hostPort.isEmpty()) {
            throw bad(uri, "a host is missing");
        }
        String host;
        String port = null;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) {
                throw bad(uri, "'" + hostPort + "' opens an IPv6 address with [ but does not close it");
            }
            host = hostPort.substring(0, close + 1);
            String after = hostPort.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) {
                    throw bad(uri, "'" + hostPort + "' is not host:port");
                }
                port = after.substring(1);
            }
        } else {
            int colon = hostPort.indexOf(':');
            host = colon >= 0 ? hostPort.substring(0, colon) : hostPort;
            port = colon >= 0 ? hostPort.substring(colon + 1) : null;
            if (!host.matches("[A-Za-z0-9._-]+")) {
                throw bad(uri, "'" + host + "' is not a host name or address");
            }
        }
        int number = DEFAULT_PORT;
        if (port != null) {
            try {
                number = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                number = -1;
            }
            if (number < 1 || number > 65535) {
                throw bad(uri, "port '" + port + "' is not a number from 1 to 65535");
            }
        }
        return host + ":" + number;
    }

    private static boolean validPrefix(String prefix) {
        if (prefix.isEmpty() || prefix.length() > 100 || prefix.startsWith("/") || prefix.contains("//")) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-_.:/@+=#".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static Map<String, String> params(String uri, String query) {
        Map<String, String> out = new LinkedHashMap<>();
        if (query.isEmpty()) {
            return out;
        }
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw bad(uri, "parameter '" + pair + "' is not name=value");
            }
            out.put(pair.substring(0, eq).toLowerCase(Locale.ROOT), decode(pair.substring(eq + 1)));
        }
        return out;
    }

    private static Duration timeout(String uri, String value, String name) {
        if (value == null) {
            return DEFAULT_TIMEOUT;
        }
        Duration d;
        try {
            d = Durations.parse(value);
        } catch (IllegalArgumentException e) {
            throw bad(uri, name + ": " + e.getMessage());
        }
        if (d.compareTo(Duration.ofMillis(100)) < 0 || d.compareTo(Duration.ofMinutes(10)) > 0) {
            throw bad(uri, name + " " + value + " is out of range; allowed: 100ms to 10m");
        }
        return d;
    }

    private static Path file(String uri, String value, String name) {
        if (value == null) {
            return null;
        }
        Path p = Path.of(value);
        if (!Files.isReadable(p)) {
            throw bad(uri, name + " file " + value + " cannot be read");
        }
        return p;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static IllegalArgumentException bad(String uri, String problem) {
        return new IllegalArgumentException("etcd URI '" + io.holdfast.Uris.redact(uri) + "' is not valid: " + problem
                + "; expected " + FORM);
    }
}
