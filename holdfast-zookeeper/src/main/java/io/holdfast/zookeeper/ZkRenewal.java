package io.holdfast.zookeeper;

import io.holdfast.HoldfastException;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.HoldRef;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Renewal of holds, and the proof behind it.
 *
 * <p>The core counts a hold's local deadline from the send time of the acquire or renewal it was last
 * told succeeded. That is safe only if the ensemble's <i>leader</i>, which alone expires sessions, has
 * heard from the session at or after that instant ({@link LeaderProof}). So a renewal sent at <i>t</i>:
 * <ol>
 *   <li>refuses outright (every hold not renewed, so lost) if the session was negotiated shorter than
 *       the lease, as after a reconnect to a server with a lower {@code maxSessionTimeout};</li>
 *   <li>sends a {@code sync}, then one read-only multi per 500 holds checking each node exists in this
 *       session: a follower cut off from the leader cannot answer the sync, so no stale answer renews;</li>
 *   <li>one ping interval of the leader after those answers, sends a second {@code sync}; only when it
 *       succeeds is <i>t</i> proven, and the holds reported renewed. The interval is a task scheduled on the
 *       store's timer thread, not a sleep: no thread waits for it, so the core goes on renewing the client's
 *       other holds meanwhile ({@link io.holdfast.spi.LockStore#renewEachAsync}).</li>
 * </ol>
 * A renewal that fails leaves the deadlines where they were, which is safe only for holds whose last
 * reported instant is proven. If any hold of the batch is unproven (acquired less than a ping interval
 * ago and never proven since), the failure reports the whole batch lost instead. Each acquisition is
 * proven in the background one ping interval (at most an eighth more) after it, by a {@code sync} that the
 * session's acquisitions of that eighth share ({@link LeaderProof#planBackgroundSync}).
 */
final class ZkRenewal {
    private static final Logger log = LoggerFactory.getLogger(ZkRenewal.class);
    private static final int MULTI_BATCH = 500;

    private final Function<String, QueueNode> nodes;
    private final Predicate<QueueNode> current;
    private final NodeReaper reaper;
    private final ScheduledThreadPoolExecutor timers;
    private final long requestTimeoutMs;

    ZkRenewal(Function<String, QueueNode> nodes, Predicate<QueueNode> current, NodeReaper reaper, ScheduledThreadPoolExecutor timers,
              long requestTimeoutMs) {
        this.nodes = nodes;
        this.current = current;
        this.reaper = reaper;
        this.timers = timers;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    /** {@code node} was acquired by requests sent at {@code sentNanos} (or, if sent, false: by an earlier listing). */
    void acquired(QueueNode node, long startedNanos, boolean sentThisAttempt) {
        node.basisNanos = startedNanos;
        Session s = node.session;
        if (sentThisAttempt) {
            s.proof.answered(node.sessionId, startedNanos);
        }
        reaper.armExpiry(node, startedNanos, current);
        long delay = s.proof.planBackgroundSync(System.nanoTime());
        if (delay < 0) {
            return; // a sync planned for a ping interval from now or later proves this acquisition too
        }
        try {
            timers.schedule(() -> proveInBackground(s), delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // the store is closing
        }
    }

    private void proveInBackground(Session s) {
        try {
            ZooKeeper zk = s.zk(0);
            long sid = zk.getSessionId();
            long sent = System.nanoTime();
            s.sync(zk).whenComplete((ok, error) -> {
                if (error == null) {
                    s.proof.answered(sid, sent);
                    s.proof.synced(sid, sent);
                }
            });
        } catch (RuntimeException e) {
            // not connected: the next renewal decides
        }
    }

    /**
     * Renews the holds of {@code s}. Never blocks: the future completes with the renewed owners once the
     * renewal is proven (a ping interval after its answers, by a second {@code sync} scheduled on the store's
     * timer thread), with none if they are lost, or exceptionally if the renewal failed and every hold's last
     * instant is proven (so the core retries until the deadlines). Requests get at most lease/4 (and at most the
     * URI's connect timeout) for their answers.
     */
    CompletableFuture<Set<String>> renew(Session s, Collection<HoldRef> holds, Duration lease) {
        long started = System.nanoTime();
        if (s == null) {
            return CompletableFuture.completedFuture(Set.of());
        }
        int negotiated = s.negotiatedTimeoutMs();
        if (negotiated > 0 && negotiated < lease.toMillis()) {
            log.warn("the ZooKeeper session for leases of {} ms now has a timeout of {} ms (the servers' maxSessionTimeout changed): "
                    + "not renewing its {} hold(s), which could outlive it", lease.toMillis(), negotiated, holds.size());
            return CompletableFuture.completedFuture(Set.of());
        }
        long sid = s.sessionId();
        List<QueueNode> check = new ArrayList<>(holds.size());
        for (HoldRef h : holds) {
            QueueNode node = nodes.apply(h.ownerId());
            if (node != null && node.acquired && node.session == s && node.sessionId == sid && node.czxid == h.fencingToken()) {
                check.add(node);
            }
        }
        if (check.isEmpty()) {
            return CompletableFuture.completedFuture(Set.of());
        }
        long timeout = Math.max(100, Math.min(requestTimeoutMs, lease.toMillis() / 4));
        String what = "renew " + check.size() + " hold(s)";
        CompletableFuture<Set<String>> result = new CompletableFuture<>();
        try {
            if (!s.connected()) {
                throw s.unavailable("disconnected from the ensemble; the holds stay valid only until their local deadlines", null);
            }
            ZooKeeper zk = s.zk(0);
            if (zk.getSessionId() != sid) {
                return CompletableFuture.completedFuture(Set.of()); // a new session: the holds' nodes went with the old one
            }
            List<CompletableFuture<?>> requests = new ArrayList<>();
            requests.add(s.sync(zk));
            List<CompletableFuture<List<OpResult>>> answers = new ArrayList<>();
            for (int from = 0; from < check.size(); from += MULTI_BATCH) {
                answers.add(read(zk, check.subList(from, Math.min(check.size(), from + MULTI_BATCH))));
            }
            requests.addAll(answers);
            CompletableFuture.allOf(requests.toArray(CompletableFuture[]::new)).orTimeout(timeout, TimeUnit.MILLISECONDS)
                    .whenComplete((all, error) -> {
                        if (error != null) {
                            settle(result, s, sid, check, failure(s, error, "sync and " + what, timeout));
                            return;
                        }
                        Set<String> renewed = renewedOwners(check, answers, sid);
                        s.proof.answered(sid, started);
                        s.proof.synced(sid, started); // proves what was answered a ping interval before
                        confirmLater(s, sid, started, check, renewed, timeout, result);
                    });
        } catch (StoreUnavailableException e) {
            settle(result, s, sid, check, e);
        }
        return result;
    }

    private static Set<String> renewedOwners(List<QueueNode> check, List<CompletableFuture<List<OpResult>>> answers, long sid) {
        Set<String> renewed = new HashSet<>();
        for (int b = 0; b < answers.size(); b++) {
            List<QueueNode> batch = check.subList(b * MULTI_BATCH, Math.min(check.size(), (b + 1) * MULTI_BATCH));
            List<OpResult> results = answers.get(b).join();
            for (int i = 0; i < batch.size(); i++) {
                if (results.get(i) instanceof OpResult.GetDataResult r && r.getStat().getEphemeralOwner() == sid
                        && r.getStat().getCzxid() == batch.get(i).czxid) {
                    renewed.add(batch.get(i).owner);
                }
            }
        }
        return renewed;
    }

    /**
     * A ping interval after the renewal's answers (scheduled on the timer thread, no thread waits for it), syncs
     * again; its success proves the renewal sent at {@code started}, and only then are the holds reported renewed.
     */
    private void confirmLater(Session s, long sid, long started, List<QueueNode> check, Set<String> renewed, long timeoutMs,
                              CompletableFuture<Set<String>> result) {
        Runnable confirm = () -> confirm(s, sid, timeoutMs).whenComplete((ok, error) -> {
            if (error != null) {
                settle(result, s, sid, check, failure(s, error, "sync to confirm a renewal", timeoutMs));
            } else if (!s.proof.proven(sid, started)) {
                settle(result, s, sid, check, s.unavailable("the leader is not known to have heard the renewal", null));
            } else {
                for (QueueNode n : check) {
                    if (renewed.contains(n.owner)) {
                        n.basisNanos = started;
                        reaper.armExpiry(n, started, current);
                    }
                }
                result.complete(renewed);
            }
        });
        try {
            timers.schedule(confirm, TimeUnit.NANOSECONDS.toMillis(s.proof.delayNanos) + 1, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            settle(result, s, sid, check, s.unavailable("the store is closing", closing));
        }
    }

    /** Sends the confirming {@code sync} now; it completes when answered (and recorded in the proof). */
    private static CompletableFuture<Void> confirm(Session s, long sid, long timeoutMs) {
        try {
            ZooKeeper zk = s.zk(0);
            if (zk.getSessionId() != sid) {
                return CompletableFuture.failedFuture(s.unavailable("the session changed during the renewal", null));
            }
            long sent = System.nanoTime();
            return s.sync(zk).orTimeout(timeoutMs, TimeUnit.MILLISECONDS).thenRun(() -> {
                s.proof.answered(sid, sent);
                s.proof.synced(sid, sent);
            });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A request's failure as the exception a renewal reports: unavailable for lost connections and no answer in time. */
    private static HoldfastException failure(Session s, Throwable error, String what, long timeoutMs) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof HoldfastException known) {
            return known;
        }
        if (cause instanceof TimeoutException) {
            return s.unavailable("no answer within " + timeoutMs + " ms to " + what, cause);
        }
        if (cause instanceof KeeperException ke) {
            return Session.UNAVAILABLE.contains(ke.code()) ? s.unavailable(what + " failed: " + ke.code(), ke) : s.failure(what, ke);
        }
        return new HoldfastException("ZooKeeper request to " + what + " failed", cause);
    }

    /** Completes {@code result} as {@link #failed} decides: lost (none renewed) or the error. */
    private static void settle(CompletableFuture<Set<String>> result, Session s, long sid, List<QueueNode> check, HoldfastException error) {
        try {
            result.complete(failed(s, sid, check, error));
        } catch (HoldfastException e) {
            result.completeExceptionally(e);
        }
    }

    private static CompletableFuture<List<OpResult>> read(ZooKeeper zk, List<QueueNode> batch) {
        List<Op> reads = new ArrayList<>(batch.size());
        for (QueueNode n : batch) {
            reads.add(Op.getData(n.path));
        }
        CompletableFuture<List<OpResult>> answered = new CompletableFuture<>();
        // A read-only multi answers every read: a missing node is an ErrorResult in its place (and rc
        // names the first such error); only a failure of the whole request comes without results.
        zk.multi(reads, (AsyncCallback.MultiCallback) (rc, path, ctx, results) -> {
            if (results != null && results.size() == reads.size()) {
                answered.complete(results);
            } else {
                Session.complete(answered, rc == KeeperException.Code.OK.intValue() ? KeeperException.Code.SYSTEMERROR.intValue() : rc, path, null);
            }
        }, null);
        return answered;
    }

    /** A failed renewal: deadlines stay if every hold's is proven; else the batch is reported lost. */
    private static Set<String> failed(Session s, long sid, List<QueueNode> check, HoldfastException error) {
        for (QueueNode n : check) {
            if (!s.proof.proven(sid, n.basisNanos)) {
                log.warn("renewal of {} hold(s) failed ({}), and the ensemble's leader is not known to have heard the acquisition of"
                        + " '{}' (token {}): reporting them lost, as their session may expire before their local deadlines",
                        check.size(), error.getMessage(), n.name, n.czxid);
                return Set.of();
            }
        }
        throw error;
    }
}
