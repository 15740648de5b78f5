package io.holdfast.redis;

import io.holdfast.HoldfastException;
import io.holdfast.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;

import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Turns Lettuce's failures into Holdfast's typed exceptions. */
final class Errors {
    /** Replies that mean the store cannot serve the call right now, not that the call is wrong. */
    private static final String[] TRANSIENT = {"LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "NOREPLICAS",
        "MOVED", "ASK", "BUSY"};

    private Errors() {
    }

    /**
     * Waits for {@code future} (bounded by the command timeout plus slack) and translates its failure. The
     * command is already sent, so an interrupt does not cut the wait short (the reply says what happened,
     * and a release that went through must not be reported as failed); the flag is restored afterwards.
     */
    static <T> T await(CompletableFuture<T> future, RedisConnection c, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(c.timeout.toMillis() + 2_000);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new StoreUnavailableException(c.backend, c.address, "no reply within " + c.timeout.toMillis() + " ms to " + what, e);
        } catch (ExecutionException | CancellationException e) {
            throw translate(e, c.backend, c.address, what);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static RuntimeException translate(Throwable error, String backend, String address, String what) {
        Throwable t = unwrap(error);
        if (unavailable(t)) {
            return new StoreUnavailableException(backend, address, "cannot " + what + ": " + rootMessage(t), t);
        }
        return new HoldfastException(backend + " store at " + address + ": cannot " + what + ": " + rootMessage(t), t);
    }

    static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while ((t instanceof ExecutionException || t instanceof CompletionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    static boolean unavailable(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RedisConnectionException || t instanceof RedisCommandTimeoutException || t instanceof IOException
                    || t instanceof TimeoutException || t instanceof CancellationException || t instanceof StoreUnavailableException) {
                return true;
            }
            if (t instanceof RedisCommandExecutionException) {
                String m = String.valueOf(t.getMessage());
                for (String prefix : TRANSIENT) {
                    if (m.startsWith(prefix)) {
                        return true;
                    }
                }
                return false;
            }
            if (t instanceof RedisException) {
                String m = String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
                if (m.contains("not connected") || m.contains("connection closed") || m.contains("disconnected")
                        || m.contains("connection reset") || m.contains("closed") || m.contains("reconnect")) {
                    return true;
                }
            }
        }
        return false;
    }

    static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage();
        String top = t.getMessage();
        if (root != t && top != null && m != null && !top.contains(m)) {
            return top + " (" + m + ")";
        }
        return m == null ? (top == null ? root.getClass().getSimpleName() : top) : m;
    }
}
