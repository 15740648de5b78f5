package io.holdfast.bench;

import io.etcd.jetcd.Client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Starts each store (redis-server and memcached on free loopback ports, a ZooKeeper server in a child JVM through
 * curator-test, etcd members through {@link EtcdServers}, SQLite in a temporary file; PostgreSQL is the machine's), and
 * names the libraries to compare on it (Holdfast, the incumbents, the floor) and the server counters to read.
 */
final class Stores {
    static final List<String> ALL = List.of("postgresql", "redis", "zookeeper", "etcd", "memcached", "sqlite");
    private static final String HOST = "127.0.0.1";

    /**
     * @param jdbcUrl     the PostgreSQL database
     * @param poll        retry interval of the libraries that cannot wait (ShedLock, the floors) and Spring
     *                    JdbcLockRegistry's {@code idleBetweenTries}
     * @param etcdMembers members of the etcd cluster started for the run
     */
    record Options(String jdbcUrl, Duration poll, int etcdMembers) {
    }

    private Stores() {
    }

    static RunningStore start(String store, Options o) throws Exception {
        return switch (store) {
            case "postgresql" -> postgresql(o);
            case "redis" -> redis(o.poll());
            case "zookeeper" -> zookeeper(o.poll());
            case "etcd" -> etcd(o.etcdMembers(), o.poll());
            case "memcached" -> memcached(o.poll());
            case "sqlite" -> sqlite(o.poll());
            default -> throw new IllegalArgumentException("stores are " + ALL + "; got " + store);
        };
    }

    private static RunningStore postgresql(Options o) throws Exception {
        JdbcLibraries.prepareTables(o.jdbcUrl());
        try (Connection c = DriverManager.getConnection(o.jdbcUrl())) {
            Floors.prepareSqlTable(c);
        }
        String version = query(o.jdbcUrl(), "SHOW server_version");
        String holdfast = o.jdbcUrl() + (o.jdbcUrl().contains("?") ? "&" : "?") + "table=bench_holdfast_locks&poolSize=" + Pools.SIZE;
        return new RunningStore("PostgreSQL", "PostgreSQL " + version + " at " + o.jdbcUrl().replaceAll("(?i)(password=)[^&]*", "$1***"),
                List.of(HoldfastLibrary.of(holdfast, "jdbc, poolSize=" + Pools.SIZE), JdbcLibraries.spring(o.jdbcUrl(), o.poll()),
                        JdbcLibraries.shedLock(o.jdbcUrl(), o.poll()), Floors.sql(o.jdbcUrl(), Pools.SIZE, null, o.poll())),
                HoldfastLibrary.recipes(holdfast, "jdbc, poolSize=" + Pools.SIZE), Meters.postgresql(), true, () -> { });
    }

    private static RunningStore redis(Duration poll) throws Exception {
        int port = freePort();
        Path dir = Files.createTempDirectory("bench-redis-");
        Process server = new ProcessBuilder("/usr/bin/redis-server", "--port", Integer.toString(port), "--bind", HOST, "--save", "",
                "--appendonly", "no", "--dir", dir.toString(), "--logfile", dir.resolve("redis.log").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
        AutoCloseable stop = stopping(server, dir);
        try {
            String info = awaitAnswer(port, "*1\r\n$4\r\nINFO\r\n", "redis_version:");
            String version = info.substring(info.indexOf("redis_version:") + 14).lines().findFirst().orElse("?").trim();
            String holdfast = "redis://" + HOST + ":" + port + "?prefix=bench-holdfast:";
            return new RunningStore("Redis", "Redis " + version + " at " + HOST + ":" + port + " (started by the benchmark, no persistence)",
                    List.of(HoldfastLibrary.of(holdfast, "redis"),
                            RedisLibraries.redisson(HOST, port), RedisLibraries.spring(HOST, port), Floors.redis(HOST, port, poll)),
                    concat(HoldfastLibrary.recipes(holdfast, "redis"), RedissonRecipes.of(HOST, port)), Meters.redis(HOST, port), true, stop);
        } catch (Exception e) {
            stop.close();
            throw e;
        }
    }

    private static RunningStore zookeeper(Duration poll) throws Exception {
        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), ZooKeeperServerProcess.class.getName(), "1")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Thread hook = new Thread(server::destroy);
        Runtime.getRuntime().addShutdownHook(hook);
        AutoCloseable stop = () -> {
            server.getOutputStream().close(); // the server stops when its input closes
            if (!server.waitFor(20, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
            Runtime.getRuntime().removeShutdownHook(hook);
        };
        try {
            String connect = null;
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith(ZooKeeperServerProcess.CONNECT)) {
                    connect = line.substring(ZooKeeperServerProcess.CONNECT.length()).trim();
                    break;
                }
            }
            if (connect == null) {
                throw new IllegalStateException("the ZooKeeper server process exited before serving");
            }
            // The child runs the ZooKeeper jar of this classpath.
            String version = org.apache.zookeeper.Version.getFullVersion().split("[-,]")[0];
            return new RunningStore("ZooKeeper", "ZooKeeper " + version + ", one server at " + connect
                    + " (started by the benchmark in a child JVM through curator-test, tick 2 s)",
                    List.of(HoldfastLibrary.of("zookeeper://" + connect + "/bench-holdfast", "zookeeper"),
                            CoordinationLibraries.curator(connect), Floors.zookeeper(connect, poll)),
                    concat(HoldfastLibrary.recipes("zookeeper://" + connect + "/bench-holdfast", "zookeeper"), CuratorRecipes.of(connect)),
                    ServerMeter.NONE, false, stop);
        } catch (Exception e) {
            stop.close();
            throw e;
        }
    }

    private static RunningStore etcd(int members, Duration poll) throws Exception {
        EtcdServers servers = EtcdServers.start(members);
        Thread hook = new Thread(servers::close);
        Runtime.getRuntime().addShutdownHook(hook);
        AutoCloseable stop = () -> {
            servers.close();
            Runtime.getRuntime().removeShutdownHook(hook);
        };
        try {
            List<String> endpoints = servers.endpoints();
            String version;
            try (Client client = Client.builder().endpoints("http://" + endpoints.get(0)).build()) {
                version = client.getMaintenanceClient().statusMember("http://" + endpoints.get(0)).get(10, TimeUnit.SECONDS).getVersion();
            }
            String prefix = "bench-" + UUID.randomUUID().toString().substring(0, 8);
            return new RunningStore("etcd", "etcd " + version + ", " + members + (members == 1 ? " member" : " members") + " at "
                    + String.join(",", endpoints) + " (started by the benchmark, default timing)",
                    List.of(HoldfastLibrary.of("etcd://" + String.join(",", endpoints) + "/" + prefix + "/holdfast", "etcd"),
                            CoordinationLibraries.jetcd(endpoints, prefix + "/jetcd"), Floors.etcd(endpoints, prefix + "/floor", poll)),
                    concat(HoldfastLibrary.recipes("etcd://" + String.join(",", endpoints) + "/" + prefix + "/holdfast", "etcd"),
                            EtcdRecipes.of(endpoints, prefix + "/jetcd-election")), Meters.etcd(endpoints, servers::pids), false, stop);
        } catch (Exception e) {
            stop.close();
            throw e;
        }
    }

    private static RunningStore memcached(Duration poll) throws Exception {
        int port = freePort();
        Process server = new ProcessBuilder("/usr/bin/memcached", "-l", HOST, "-p", Integer.toString(port), "-U", "0", "-m", "256",
                "-u", System.getProperty("user.name")).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        AutoCloseable stop = stopping(server, null);
        try {
            String version = awaitAnswer(port, "version\r\n", "VERSION ").replace("VERSION ", "").trim();
            return new RunningStore("Memcached", "Memcached " + version + " at " + HOST + ":" + port + " (started by the benchmark)",
                    List.of(HoldfastLibrary.of("memcached://" + HOST + ":" + port + "?prefix=bench:", "memcached"),
                            Floors.memcached(HOST, port, poll)), HoldfastLibrary.recipes("memcached://" + HOST + ":" + port + "?prefix=bench:", "memcached"),
                    Meters.memcached(HOST, port), true, stop);
        } catch (Exception e) {
            stop.close();
            throw e;
        }
    }

    private static RunningStore sqlite(Duration poll) throws Exception {
        Path dir = Files.createTempDirectory("bench-sqlite-");
        Path file = dir.resolve("locks.db");
        String version = query("jdbc:sqlite:" + file, "SELECT sqlite_version()");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            Floors.prepareSqlTable(c);
        }
        query("jdbc:sqlite:" + file, "PRAGMA journal_mode = WAL"); // as Holdfast's SQLite store (and synchronous = FULL, the default)
        return new RunningStore("SQLite", "SQLite " + version + ", file " + file + " (a temporary file)",
                List.of(HoldfastLibrary.of("sqlite:" + file, "sqlite"),
                        Floors.sql("jdbc:sqlite:" + file, 1, "PRAGMA busy_timeout = 10000", poll)),
                HoldfastLibrary.recipes("sqlite:" + file, "sqlite"), ServerMeter.NONE, true, () -> deleteTree(dir));
    }

    // ------------------------------------------------------------------------------------------- helpers

    private static List<RecipeLibrary> concat(List<RecipeLibrary> holdfast, List<RecipeLibrary> incumbents) {
        return Stream.concat(holdfast.stream(), incumbents.stream()).toList();
    }

    private static String query(String jdbcUrl, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Stops {@code server} (also when the JVM exits first) and deletes {@code dir} if given. */
    private static AutoCloseable stopping(Process server, Path dir) {
        Thread hook = new Thread(server::destroy);
        Runtime.getRuntime().addShutdownHook(hook);
        return () -> {
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
            Runtime.getRuntime().removeShutdownHook(hook);
            if (dir != null) {
                deleteTree(dir);
            }
        };
    }

    /** Sends {@code request} to the server on {@code port} until it answers with {@code marker} in its reply (30 s at most). */
    private static String awaitAnswer(int port, String request, String marker) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(HOST, port), 1_000);
                s.setSoTimeout(5_000);
                s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
                StringBuilder reply = new StringBuilder();
                for (String l = in.readLine(); l != null; l = in.readLine()) {
                    reply.append(l).append('\n');
                    if (l.startsWith(marker)) {
                        return reply.substring(reply.indexOf(marker));
                    }
                }
            } catch (IOException e) {
                // not serving yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no server answering on " + HOST + ":" + port + " within 30 s");
            }
            Thread.sleep(50);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
