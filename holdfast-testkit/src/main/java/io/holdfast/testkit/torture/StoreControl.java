package io.holdfast.testkit.torture;

/**
 * How the torture harness restarts a store it started itself: the {@link Fault#RESTART} fault kills the
 * store with {@link #kill()}, waits a moment, and brings it back with {@link #start()}. A backend's test
 * plugs in its own server handling (a {@code redis-server} process, an etcd member, a ZooKeeper server
 * in the test JVM...). Without one, the harness skips restart faults and says so in its report.
 */
public interface StoreControl {

    /** What is restarted, for the report, such as {@code redis-server 127.0.0.1:6380}. */
    String describe();

    /**
     * Stops the store abruptly, the way a crash would (SIGKILL where the store is a process), and
     * returns once it no longer answers.
     */
    void kill() throws Exception;

    /** Starts the store again at the same address and returns once it answers. */
    void start() throws Exception;
}
