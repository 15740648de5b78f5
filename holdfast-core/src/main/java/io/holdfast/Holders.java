package io.holdfast;

import java.net.InetAddress;

/** Describes this process to operators. */
final class Holders {
    private Holders() {
    }

    static String localHolder() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = System.getenv().getOrDefault("HOSTNAME", "unknown-host");
        }
        return host + ":" + ProcessHandle.current().pid();
    }
}
