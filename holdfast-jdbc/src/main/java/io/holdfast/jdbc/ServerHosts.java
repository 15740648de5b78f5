package io.holdfast.jdbc;

import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Checks the {@code host[:port][,host[:port]...]} part of a server database's JDBC URL before a driver sees
 * it, so that a missing host or a port outside 1 to 65535 is a usage error rather than a driver's "No
 * suitable driver" (and the PostgreSQL driver's own log warning).
 */
final class ServerHosts {
    private static final Pattern HOST = Pattern.compile("\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9_.\\-]+");

    private ServerHosts() {
    }

    static void check(String hosts, Function<String, IllegalArgumentException> bad) {
        for (String hostPort : hosts.split(",", -1)) {
            String host = hostPort;
            String port = null;
            int colon = hostPort.lastIndexOf(':');
            if (colon >= 0 && hostPort.indexOf(']') < colon) {
                host = hostPort.substring(0, colon);
                port = hostPort.substring(colon + 1);
            }
            if (host.isEmpty()) {
                throw bad.apply("no host is given in '" + hostPort + "'");
            }
            if (!HOST.matcher(host).matches()) {
                throw bad.apply("host '" + hostPort + "' is not a host name, IPv4 address or [IPv6] address");
            }
            if (port != null) {
                int number;
                try {
                    number = Integer.parseInt(port);
                } catch (NumberFormatException e) {
                    number = -1;
                }
                if (number < 1 || number > 65535) {
                    throw bad.apply("port in '" + hostPort + "' is not a number from 1 to 65535");
                }
            }
        }
    }
}
