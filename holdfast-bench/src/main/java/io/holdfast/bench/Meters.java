package io.holdfast.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/** The server-side counters of each store that has them, as {@link ServerMeter}s. */
final class Meters {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Meters() {
    }

    private record Meter(List<String> names, Reader reader) implements ServerMeter {
        @Override
        public double[] read() throws Exception {
            return reader.read();
        }
    }

    private interface Reader {
        double[] read() throws Exception;
    }

    /**
     * PostgreSQL: the JDBC round trips of every connection of this JVM, counted at the driver ({@link JdbcCounter},
     * installed here), and the CPU time of the server backends of those connections.
     */
    static ServerMeter postgresql() {
        JdbcCounter.install();
        return new Meter(List.of("DB round trips", "PostgreSQL CPU µs"),
                () -> new double[] {JdbcCounter.snapshot().roundTrips(), ProcCpu.micros(JdbcCounter.openBackendPids())});
    }

    /**
     * Redis: commands executed (the sum of {@code INFO commandstats} calls, less the meter's own {@code INFO}; the
     * commands a script runs count, as Redis counts them) and the server's CPU time ({@code INFO cpu}).
     */
    static ServerMeter redis(String host, int port) {
        return new Meter(List.of("Redis commands", "Redis CPU µs"), () -> {
            String info = exchange(host, port, "*3\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n$3\r\ncpu\r\n", Meters::wholeBulkString);
            double commands = 0;
            double cpuSeconds = 0;
            for (String line : info.split("\r?\n")) {
                if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
                    commands += field(line.substring(line.indexOf(':') + 1), "calls=");
                } else if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                    cpuSeconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return new double[] {commands, cpuSeconds * 1e6};
        });
    }

    /** Memcached: commands ({@code stats}: gets, sets of every kind, touches, incr/decr, deletes) and its CPU time. */
    static ServerMeter memcached(String host, int port) {
        List<String> commands = List.of("cmd_get", "cmd_set", "cmd_touch", "incr_hits", "incr_misses", "decr_hits", "decr_misses",
                "delete_hits", "delete_misses");
        return new Meter(List.of("Memcached commands", "Memcached CPU µs"), () -> {
            double n = 0;
            double cpuSeconds = 0;
            for (String line : exchange(host, port, "stats\r\n", text -> text.endsWith("END\r\n")).split("\r?\n")) {
                String[] parts = line.split(" ");
                if (parts.length == 3 && commands.contains(parts[1])) {
                    n += Double.parseDouble(parts[2]);
                } else if (parts.length == 3 && (parts[1].equals("rusage_user") || parts[1].equals("rusage_system"))) {
                    cpuSeconds += Double.parseDouble(parts[2]);
                }
            }
            return new double[] {n, cpuSeconds * 1e6};
        });
    }

    /**
     * etcd: gRPC messages received by every member (all methods but health checks, {@code grpc_server_msg_received_total}
     * from {@code /metrics}), Raft proposals committed (the leader's count, the highest), and the CPU time of the
     * member processes ({@code /proc}; the benchmark started them).
     */
    static ServerMeter etcd(List<String> endpoints, Supplier<List<Long>> pids) {
        return new Meter(List.of("gRPC messages", "Raft proposals", "etcd CPU µs"), () -> {
            double messages = 0;
            double proposals = 0;
            for (String e : endpoints) {
                String body = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + e + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                for (String line : body.split("\n")) {
                    if (line.startsWith("grpc_server_msg_received_total{") && !line.contains("grpc.health")) {
                        messages += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                    } else if (line.startsWith("etcd_server_proposals_committed_total ")) {
                        proposals = Math.max(proposals, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
                    }
                }
            }
            return new double[] {messages, proposals, ProcCpu.micros(pids.get())};
        });
    }

    /** {@code key=value} in a comma-separated list, as a number (0 if missing). */
    private static double field(String list, String key) {
        for (String part : list.split(",")) {
            if (part.startsWith(key)) {
                return Double.parseDouble(part.substring(key.length()));
            }
        }
        return 0;
    }

    /** Whether {@code text} is a whole RESP bulk string ({@code $length}, CRLF, that many bytes). */
    private static boolean wholeBulkString(String text) {
        int eol = text.indexOf("\r\n");
        return eol > 0 && text.length() >= eol + 2 + Integer.parseInt(text.substring(1, eol));
    }

    /** Sends {@code request} on a new connection and reads the reply until {@code complete} says it is whole. */
    static String exchange(String host, int port, String request, java.util.function.Predicate<String> complete) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 5_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream reply = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                reply.write(buffer, 0, n);
                String text = reply.toString(StandardCharsets.US_ASCII);
                if (complete.test(text)) {
                    return text;
                }
            }
            throw new IOException("the server at " + host + ":" + port + " closed the connection before answering " + request.trim());
        }
    }
}
