package io.holdfast.etcd;

import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.holdfast.HoldfastException;
import io.holdfast.StoreUnavailableException;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for jetcd's futures with a bound, and turns their failures into Holdfast's exceptions: an
 * unreachable cluster, a lost quorum or a call that does not answer in time is a
 * {@link StoreUnavailableException}; a refused login or permission is a {@link HoldfastException}.
 */
final class EtcdCalls {
    static final String BACKEND = "etcd";
    private final String address;

    EtcdCalls(String address) {
        this.address = address;
    }

    /** Waits up to {@code timeout} for {@code future}; cancels it if it does not complete in time. */
    <T> T await(CompletableFuture<T> future, Duration timeout, String what) {
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw unavailable("no answer within " + io.holdfast.Durations.format(timeout) + " to " + what, e);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new HoldfastException("interrupted while waiting for etcd to " + what, e);
        } catch (CancellationException e) {
            throw unavailable("the call to " + what + " was cancelled (client closing?)", e);
        } catch (ExecutionException e) {
            throw failure(what, e.getCause());
        }
    }

    StoreUnavailableException unavailable(String detail, Throwable cause) {
        return new StoreUnavailableException(BACKEND, address, detail, cause);
    }

    /** Maps a failure of a call to {@code what}. */
    RuntimeException failure(String what, Throwable error) {
        Throwable root = unwrap(error);
        Status.Code code = code(root);
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        if (code == Status.Code.PERMISSION_DENIED || code == Status.Code.UNAUTHENTICATED
                || message.contains("authentication failed") || message.contains("permission denied")
                || message.contains("invalid auth token")) {
            return new HoldfastException("etcd at " + address + " refused to " + what + ": " + message
                    + " (check the user, password and role of the URI)", root);
        }
        if (code == Status.Code.INVALID_ARGUMENT || code == Status.Code.FAILED_PRECONDITION && !isNoLeader(message)
                || code == Status.Code.OUT_OF_RANGE || code == Status.Code.UNIMPLEMENTED) {
            return new HoldfastException("etcd at " + address + " rejected the call to " + what + ": " + message, root);
        }
        // UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, no leader, connection errors, closed clients...
        return unavailable("cannot " + what + ": " + message, root);
    }

    /** Whether {@code error} says a lease does not exist (expired or revoked). */
    static boolean isLeaseNotFound(Throwable error) {
        Throwable root = unwrap(error);
        String message = root.getMessage();
        return code(root) == Status.Code.NOT_FOUND && message != null
                && message.toLowerCase(Locale.ROOT).contains("lease not found");
    }

    private static boolean isNoLeader(String message) {
        return message.contains("no leader") || message.contains("leader changed");
    }

    static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while ((t instanceof ExecutionException || t instanceof java.util.concurrent.CompletionException
                || t instanceof dev.failsafe.FailsafeException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static Status.Code code(Throwable t) {
        if (t instanceof EtcdException e) {
            ErrorCode c = e.getErrorCode();
            return c == null ? Status.Code.UNKNOWN : Status.Code.valueOf(c.name());
        }
        if (t instanceof StatusRuntimeException s) {
            return s.getStatus().getCode();
        }
        Status fromThrowable = Status.fromThrowable(t);
        return fromThrowable.getCode();
    }
}
