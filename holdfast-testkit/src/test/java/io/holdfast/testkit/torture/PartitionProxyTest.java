package io.holdfast.testkit.torture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The partition proxy in front of a real echo server on a loopback port. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PartitionProxyTest {
    private ServerSocket echo;
    private PartitionProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    Thread c = new Thread(() -> {
                        try (s) {
                            s.getInputStream().transferTo(s.getOutputStream());
                        } catch (IOException e) {
                            // client went away
                        }
                    });
                    c.setDaemon(true);
                    c.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        proxy = new PartitionProxy("127.0.0.1", echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", proxy.port());
        s.setSoTimeout(5_000);
        return s;
    }

    private static long roundTripMillis(Socket s, int b) throws IOException {
        long start = System.nanoTime();
        OutputStream out = s.getOutputStream();
        out.write(b);
        out.flush();
        InputStream in = s.getInputStream();
        assertThat(in.read()).isEqualTo(b);
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Test
    void forwardsDelaysEachWayAndHealsWithoutDroppingTheConnection() throws IOException {
        try (Socket s = connect()) {
            roundTripMillis(s, 1);
            proxy.delay(Duration.ofMillis(300));
            assertThat(roundTripMillis(s, 2)).as("round trip with 300 ms each way").isGreaterThanOrEqualTo(600);
            proxy.heal();
            roundTripMillis(s, 3);
        }
    }

    @Test
    void dropHoldsTheBytesBackUntilTheHealAndThenDeliversThem() throws Exception {
        try (Socket s = connect()) {
            roundTripMillis(s, 1);
            proxy.drop();
            s.setSoTimeout(500);
            s.getOutputStream().write(7);
            s.getOutputStream().flush();
            assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            proxy.heal();
            s.setSoTimeout(5_000);
            assertThat(s.getInputStream().read()).as("the byte held back, delivered after the heal").isEqualTo(7);
        }
    }

    @Test
    void resetClosesLiveConnectionsAndRefusesNewOnesUntilTheHeal() throws IOException {
        try (Socket s = connect()) {
            roundTripMillis(s, 1);
            proxy.reset();
            assertThat(readOrEnd(s)).as("the live connection is closed").isEqualTo(-1);
        }
        try (Socket s = connect()) {
            assertThat(readOrEnd(s)).as("a new connection is closed on arrival").isEqualTo(-1);
        }
        proxy.heal();
        try (Socket s = connect()) {
            roundTripMillis(s, 5);
        }
    }

    private static int readOrEnd(Socket s) {
        try {
            s.getOutputStream().write(9);
            s.getOutputStream().flush();
            return s.getInputStream().read();
        } catch (IOException e) {
            return -1; // reset: as good as an end of stream here
        }
    }
}
