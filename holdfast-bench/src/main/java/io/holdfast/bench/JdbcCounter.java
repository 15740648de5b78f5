package io.holdfast.bench;

import org.postgresql.PGConnection;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.LinkedHashSet;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;

/**
 * Counts, for every library alike, the JDBC calls that reach the PostgreSQL server and the time the
 * calling threads spend in them. It replaces the registered PostgreSQL driver with a wrapper, so every
 * connection opened through {@link DriverManager} (HikariCP with a {@code jdbcUrl} does that, and so
 * does Holdfast's listener connection) is counted without any library knowing.
 *
 * <p>Counted as one round trip each: {@code Statement.execute*} (a batch counts once), and on
 * connections {@code commit}, {@code rollback}, {@code setTransactionIsolation} and {@code isValid}.
 * Also tracks the server process id of every open connection, for {@link ServerCpu}.
 */
final class JdbcCounter {
    private static final LongAdder ROUND_TRIPS = new LongAdder();
    private static final LongAdder NANOS_IN_CALLS = new LongAdder();
    private static final LongAdder CONNECTIONS_OPENED = new LongAdder();
    private static final Set<Integer> OPEN_BACKEND_PIDS = ConcurrentHashMap.newKeySet();
    private static final Set<String> CONNECTION_ROUND_TRIPS = Set.of("commit", "rollback", "setTransactionIsolation", "isValid");
    private static volatile boolean installed;

    private JdbcCounter() {
    }

    /** What the counters read at one moment. */
    record Snapshot(long roundTrips, long nanosInCalls, long connectionsOpened) {
        Snapshot minus(Snapshot earlier) {
            return new Snapshot(roundTrips - earlier.roundTrips, nanosInCalls - earlier.nanosInCalls,
                    connectionsOpened - earlier.connectionsOpened);
        }
    }

    static Snapshot snapshot() {
        return new Snapshot(ROUND_TRIPS.sum(), NANOS_IN_CALLS.sum(), CONNECTIONS_OPENED.sum());
    }

    /** Server process ids of the connections open now. */
    static Set<Integer> openBackendPids() {
        return Set.copyOf(OPEN_BACKEND_PIDS);
    }

    static boolean isInstalled() {
        return installed;
    }

    /**
     * Wraps the registered PostgreSQL driver. Idempotent.
     *
     * @throws IllegalStateException if no PostgreSQL driver is registered
     */
    static synchronized void install() {
        if (installed) {
            return;
        }
        try {
            Class.forName("org.postgresql.Driver");
            Driver real = DriverManager.getDriver("jdbc:postgresql://127.0.0.1/x");
            DriverManager.deregisterDriver(real);
            DriverManager.registerDriver(new CountingDriver(real));
            installed = true;
        } catch (SQLException | ClassNotFoundException e) {
            throw new IllegalStateException("cannot wrap the PostgreSQL JDBC driver: " + e, e);
        }
    }

    private static final class CountingDriver implements Driver {
        private final Driver real;

        CountingDriver(Driver real) {
            this.real = real;
        }

        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            Connection c = real.connect(url, info);
            if (c == null) {
                return null;
            }
            CONNECTIONS_OPENED.increment();
            Integer pid = null;
            if (c.isWrapperFor(PGConnection.class)) {
                pid = c.unwrap(PGConnection.class).getBackendPID();
                OPEN_BACKEND_PIDS.add(pid);
            }
            return (Connection) wrap(c, new ConnectionHandler(c, pid));
        }

        @Override
        public boolean acceptsURL(String url) throws SQLException {
            return real.acceptsURL(url);
        }

        @Override
        public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
            return real.getPropertyInfo(url, info);
        }

        @Override
        public int getMajorVersion() {
            return real.getMajorVersion();
        }

        @Override
        public int getMinorVersion() {
            return real.getMinorVersion();
        }

        @Override
        public boolean jdbcCompliant() {
            return real.jdbcCompliant();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return real.getParentLogger();
        }
    }

    private static Object wrap(Object real, InvocationHandler handler) {
        Set<Class<?>> interfaces = new LinkedHashSet<>();
        for (Class<?> c = real.getClass(); c != null; c = c.getSuperclass()) {
            collectPublicInterfaces(c, interfaces);
        }
        return Proxy.newProxyInstance(real.getClass().getClassLoader(), interfaces.toArray(new Class<?>[0]), handler);
    }

    private static void collectPublicInterfaces(Class<?> type, Set<Class<?>> into) {
        for (Class<?> i : type.getInterfaces()) {
            if (Modifier.isPublic(i.getModifiers())) {
                into.add(i);
            }
            collectPublicInterfaces(i, into);
        }
    }

    private static Object invokeCounted(Object target, Method method, Object[] args) throws Throwable {
        long start = System.nanoTime();
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        } finally {
            NANOS_IN_CALLS.add(System.nanoTime() - start);
            ROUND_TRIPS.increment();
        }
    }

    private static Object invokePlain(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Object unwrapOrDelegate(Object proxy, Object real, Method method, Object[] args) throws Throwable {
        Class<?> type = (Class<?>) args[0];
        if (method.getName().equals("isWrapperFor")) {
            return type.isInstance(proxy) || (Boolean) invokePlain(real, method, args);
        }
        return type.isInstance(proxy) ? proxy : invokePlain(real, method, args);
    }

    private static final class ConnectionHandler implements InvocationHandler {
        private final Connection real;
        private final Integer pid;

        ConnectionHandler(Connection real, Integer pid) {
            this.real = real;
            this.pid = pid;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            switch (name) {
                case "unwrap", "isWrapperFor" -> {
                    return unwrapOrDelegate(proxy, real, method, args);
                }
                case "close" -> {
                    if (pid != null) {
                        OPEN_BACKEND_PIDS.remove(pid);
                    }
                    return invokePlain(real, method, args);
                }
                case "equals" -> {
                    return proxy == args[0];
                }
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                default -> {
                    if (CONNECTION_ROUND_TRIPS.contains(name)) {
                        return invokeCounted(real, method, args);
                    }
                    Object result = invokePlain(real, method, args);
                    if (result instanceof Statement statement
                            && (name.equals("createStatement") || name.equals("prepareStatement") || name.equals("prepareCall"))) {
                        Object wrapped = wrap(statement, new StatementHandler(statement, (Connection) proxy));
                        Class<?> expected = statement instanceof CallableStatement ? CallableStatement.class
                                : statement instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
                        return expected.cast(wrapped);
                    }
                    return result;
                }
            }
        }
    }

    private static final class StatementHandler implements InvocationHandler {
        private final Statement real;
        private final Connection connectionProxy;

        StatementHandler(Statement real, Connection connectionProxy) {
            this.real = real;
            this.connectionProxy = connectionProxy;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (name.startsWith("execute")) {
                return invokeCounted(real, method, args);
            }
            switch (name) {
                case "unwrap", "isWrapperFor" -> {
                    return unwrapOrDelegate(proxy, real, method, args);
                }
                case "getConnection" -> {
                    return connectionProxy;
                }
                case "equals" -> {
                    return proxy == args[0];
                }
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                default -> {
                    return invokePlain(real, method, args);
                }
            }
        }
    }
}
