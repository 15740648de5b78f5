package io.holdfast.testkit.torture;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntUnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The loopback {@code host:port} addresses written in a store URI, whatever its scheme
 * ({@code jdbc:postgresql://127.0.0.1:5432/db}, {@code zookeeper://127.0.0.1:2181,127.0.0.1:2182/x},
 * {@code redis://localhost:6379}...), so the harness can put a proxy in front of each and hand the clients
 * a URI that points at the proxies. Addresses that are not on the loopback interface are left alone: the
 * harness only ever proxies traffic on this machine.
 */
final class Endpoints {
    private static final Pattern LOOPBACK = Pattern.compile("(127\\.0\\.0\\.1|localhost|\\[::1\\]):(\\d{1,5})");

    private Endpoints() {
    }

    /** Every distinct loopback port in {@code uri}, keyed by the text that names it ({@code 127.0.0.1:5432}). */
    static Map<String, Integer> loopbackPorts(String uri) {
        Map<String, Integer> found = new LinkedHashMap<>();
        Matcher m = LOOPBACK.matcher(uri);
        while (m.find()) {
            found.put(m.group(), Integer.parseInt(m.group(2)));
        }
        return found;
    }

    /** {@code uri} with each loopback {@code host:port} replaced by {@code 127.0.0.1:<portFor(port)>}. */
    static String rewrite(String uri, IntUnaryOperator portFor) {
        Matcher m = LOOPBACK.matcher(uri);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(b, Matcher.quoteReplacement("127.0.0.1:" + portFor.applyAsInt(Integer.parseInt(m.group(2)))));
        }
        m.appendTail(b);
        return b.toString();
    }
}
