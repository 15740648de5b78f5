package io.holdfast.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Loopback ports for tests. */
public final class LoopbackPorts {
    private LoopbackPorts() {
    }

    /**
     * A TCP port on 127.0.0.1 that nothing listened on at the moment of the call (the operating system
     * picked it as free and it was released again). Connecting to it is refused unless another process
     * happens to bind it in between.
     */
    public static int unusedPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("could not find a free loopback port", e);
        }
    }
}
