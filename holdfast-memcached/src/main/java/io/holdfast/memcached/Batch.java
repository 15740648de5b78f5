package io.holdfast.memcached;

import io.holdfast.HoldfastException;
import io.holdfast.StoreUnavailableException;
import net.rubyeye.xmemcached.CommandFactory;
import net.rubyeye.xmemcached.command.Command;
import net.rubyeye.xmemcached.command.CommandType;
import net.rubyeye.xmemcached.exception.MemcachedException;
import net.rubyeye.xmemcached.exception.MemcachedServerException;
import net.rubyeye.xmemcached.networking.Connector;
import net.rubyeye.xmemcached.transcoders.CachedData;
import net.rubyeye.xmemcached.transcoders.StringTranscoder;
import net.rubyeye.xmemcached.utils.ByteUtils;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Binary-protocol commands sent back to back through xmemcached's connector and awaited together: a batch
 * costs one round trip per server it touches. Commands for one server travel on its single connection in
 * the order they were added, and Memcached executes a connection's commands in that order.
 *
 * <p>Not thread-safe; one batch per call.
 */
final class Batch {
    private static final StringTranscoder TEXT = new StringTranscoder("UTF-8");

    private final Connector connector;
    private final CommandFactory factory;
    private final String backend;
    private final String address;
    private final long timeoutMillis;
    private final String what;
    private final List<Command> commands = new ArrayList<>();
    private final Set<Command> timedOut = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Map<Command, Exception> unsent = new IdentityHashMap<>();

    Batch(Connector connector, CommandFactory factory, String backend, String address, long timeoutMillis, String what) {
        this.connector = connector;
        this.factory = factory;
        this.backend = backend;
        this.address = address;
        this.timeoutMillis = timeoutMillis;
        this.what = what;
    }

    /** {@code add}: stores {@code value} only if {@code key} is absent. Result: {@link #stored}. */
    Command add(String key, int expirySeconds, String value) {
        return send(factory.createAddCommand(key, bytes(key), expirySeconds, value, false, TEXT));
    }

    /** {@code cas}: replaces the value only if its CAS id is still {@code cas}. Result: {@link #stored}. */
    Command cas(String key, int expirySeconds, String value, long cas) {
        return send(factory.createCASCommand(key, bytes(key), expirySeconds, value, cas, false, TEXT));
    }

    /**
     * {@code incr} by one; an absent counter is created at {@code initial} (without expiry) and
     * {@code initial} returned, atomically in the server. Result: {@link #number}.
     */
    Command incr(String key, long initial) {
        return incr(key, 1, initial);
    }

    /** {@code incr} by {@code delta}; an absent counter is created at {@code initial}. Result: {@link #number}. */
    Command incr(String key, long delta, long initial) {
        return send(factory.createIncrDecrCommand(key, bytes(key), delta, initial, 0, CommandType.INCR, false));
    }

    /** {@code gets}: the value and its CAS id. Result: {@link #value}. */
    Command gets(String key) {
        return send(factory.createGetCommand(key, bytes(key), CommandType.GETS_ONE, null));
    }

    /** {@code delete}, only if the CAS id is still {@code cas} (0: unconditionally). Result: {@link #stored}. */
    Command delete(String key, long cas) {
        return send(factory.createDeleteCommand(key, bytes(key), 0, cas, false));
    }

    boolean isEmpty() {
        return commands.isEmpty();
    }

    /**
     * Waits for every reply, at most the operation timeout in all.
     *
     * @throws StoreUnavailableException if a server cannot be reached or does not answer in time
     * @throws HoldfastException if a server refuses a command
     */
    void await() {
        awaitEach();
        for (Command c : commands) {
            RuntimeException failure = failure(c);
            if (failure != null) {
                throw failure;
            }
        }
    }

    /**
     * Waits for every reply, at most the operation timeout in all, without throwing for the commands that
     * failed: {@link #failure} tells which did. For a batch that spans servers, where one server's failure
     * should not take the others' results with it.
     */
    void awaitEach() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        try {
            for (Command c : commands) {
                if (unsent.containsKey(c)) {
                    continue;
                }
                long left = deadline - System.nanoTime();
                if (!c.getLatch().await(Math.max(0, left), TimeUnit.NANOSECONDS)) {
                    c.cancel();
                    timedOut.add(c);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cancelAll();
            throw new StoreUnavailableException(backend, address, "interrupted while waiting to " + what, e);
        }
        for (Command c : commands) {
            if (c.getIoBuffer() != null && !timedOut.contains(c) && !unsent.containsKey(c)) {
                c.getIoBuffer().free();
            }
        }
    }

    /** Why {@code c} failed, or null if it got a reply (whatever the reply says). */
    RuntimeException failure(Command c) {
        if (timedOut.contains(c)) {
            return new StoreUnavailableException(backend, address, "no reply within " + timeoutMillis + " ms to " + what, null);
        }
        Exception e = unsent.containsKey(c) ? unsent.get(c) : c.getException();
        if (e instanceof MemcachedServerException) {
            return new HoldfastException(backend + " store at " + address + ": cannot " + what + ": the server answered "
                    + e.getMessage() + " to " + c.getCommandType(), e);
        }
        return e == null ? null : unavailable(e);
    }

    /** Whether a store or delete command took effect. */
    static boolean stored(Command c) {
        return Boolean.TRUE.equals(c.getResult());
    }

    /** The value a gets found, or null if the key is absent. */
    static CachedData value(Command c) {
        return c.getResult() instanceof CachedData data ? data : null;
    }

    /**
     * Whether an incr with an initial value lost the race to create its counter: two clients' first incr
     * of an absent counter at once, where the server creates it for one and answers the other that it
     * exists (a {@code false} result). The counter exists now; the incr can be sent again.
     */
    static boolean lostCreateRace(Command c) {
        return Boolean.FALSE.equals(c.getResult());
    }

    /** The counter an incr returned. */
    static long number(Command c) {
        if (c.getResult() instanceof Long n) {
            return n;
        }
        throw new HoldfastException("incr of " + c.getKey() + " returned " + c.getResult() + " instead of a number");
    }

    /** Sends {@code c}; a command that cannot be sent (its server is down) fails, without stopping the batch. */
    private Command send(Command c) {
        commands.add(c);
        try {
            connector.send(c);
        } catch (MemcachedException e) {
            unsent.put(c, e);
        }
        return c;
    }

    private StoreUnavailableException unavailable(Exception e) {
        return new StoreUnavailableException(backend, address, "cannot " + what + ": " + e.getMessage(), e);
    }

    private void cancelAll() {
        for (Command c : commands) {
            c.cancel();
        }
    }

    private static byte[] bytes(String key) {
        byte[] b = ByteUtils.getBytes(key);
        ByteUtils.checkKey(b);
        return b;
    }
}
