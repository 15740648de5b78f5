package io.holdfast.spring;

import org.apache.curator.framework.CuratorFramework;

/** The Holdfast URI for the ensemble of the application's {@link CuratorFramework}. */
final class CuratorUris {
    private CuratorUris() {
    }

    /**
     * A {@code zookeeper://} URI for the ensemble of {@code curator}, with lock nodes under {@code CHROOT/holdfast}. Only
     * the servers are taken over: not the session (a Holdfast lease is a session of its own), not digest credentials.
     *
     * @throws HoldfastConfigurationException if the connect string is empty
     */
    static String of(CuratorFramework curator) {
        String connect = curator.getZookeeperClient().getCurrentConnectionString();
        if (connect == null || connect.isBlank()) {
            throw new HoldfastConfigurationException("The application's CuratorFramework has no connection string (an ensemble "
                    + "provider that has not found its servers yet).", "Set holdfast.uri to zookeeper://host:port,...");
        }
        connect = connect.trim();
        int slash = connect.indexOf('/');
        String servers = slash < 0 ? connect : connect.substring(0, slash);
        String chroot = slash < 0 ? "" : connect.substring(slash).replaceAll("/+$", "");
        return "zookeeper://" + servers + chroot + "/holdfast";
    }
}
