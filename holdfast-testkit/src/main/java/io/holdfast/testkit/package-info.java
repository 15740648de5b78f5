/**
 * The conformance suite every backend runs against a real store, and the tools it needs.
 *
 * <p>A backend's module depends on {@code holdfast-testkit} in test scope and adds one class per store
 * set-up that extends {@link io.holdfast.testkit.LockConformanceSuite}:
 *
 * <pre>{@code
 * class PostgresConformanceTest extends LockConformanceSuite {
 *     static final String TABLE = "hf_t_" + random;                  // isolate this class
 *     protected String uri() { return "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&table=" + TABLE; }
 *     protected String unreachableUri() { return "jdbc:postgresql://127.0.0.1:" + LoopbackPorts.unusedPort() + "/test"; }
 *     protected StoreOutage outage() {
 *         return new ProxyStoreOutage("127.0.0.1", 5432, port -> "jdbc:postgresql://127.0.0.1:" + port + "/test?...");
 *     }
 * }
 * }</pre>
 *
 * <p>The suite is a chain of base classes, each under a few hundred lines: {@link io.holdfast.testkit.ConformanceBase}
 * (clients, names, clean-up), {@link io.holdfast.testkit.SharedClientConformance} (many threads on one client),
 * {@link io.holdfast.testkit.PermitConformance} (semaphores and read-write locks),
 * {@link io.holdfast.testkit.RecipeConformance} (multi-locks and leader election) and the suite itself.
 *
 * <p>{@link io.holdfast.testkit.LoopbackProxy} cuts TCP clients off a server;
 * {@link io.holdfast.testkit.HolderProcess}, {@link io.holdfast.testkit.LeaderProcess} and
 * {@link io.holdfast.testkit.ChildJvm} run a holder or a leader in a separate process that can be killed with SIGKILL.
 */
package io.holdfast.testkit;
