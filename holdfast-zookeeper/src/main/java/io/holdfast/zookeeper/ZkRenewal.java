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
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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
 *   <li>waits one ping interval of the leader and sends a second {@code sync}; only when it succeeds is
 *       <i>t</i> proven, and the holds reported renewed.</li>
 * </ol>
 * A renewal that fails leaves the deadlines where they were, which is safe only for holds whose last
 * reported instant is proven. If any hold of the batch is unproven (acquired less than a ping interval
 * ago and never proven since), the failure reports the whole batch lost instead. Each acquisition is
 * proven in the background one ping interval after it.
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
        try {
            timers.schedule(() -> proveInBackground(s), s.proof.delayNanos, TimeUnit.NANOSECONDS);
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

    Set<String> renew(Session s, Collection<HoldRef> holds, Duration lease) {
        long started = System.nanoTime();
        if (s == null) {
            return Set.of();
        }
        int negotiated = s.negotiatedTimeoutMs();
        if (negotiated > 0 && negotiated < lease.toMillis()) {
            log.warn("the ZooKeeper session for leases of {} ms now has a timeout of {} ms (the servers' maxSessionTimeout changed): "
                    + "not renewing its {} hold(s), which could outlive it", lease.toMillis(), negotiated, holds.size());
            return Set.of();
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
            return Set.of();
        }
        long timeout = Math.max(100, Math.min(requestTimeoutMs, lease.toMillis() / 4));
        Set<String> renewed = new HashSet<>();
        try {
            if (!s.connected()) {
                throw s.unavailable("disconnected from the ensemble; the holds stay valid only until their local deadlines", null);
            }
            ZooKeeper zk = s.zk(0);
            if (zk.getSessionId() != sid) {
                return Set.of(); // a new session: the holds' nodes went with the old one
            }
            CompletableFuture<Void> synced = s.sync(zk);
            List<CompletableFuture<List<OpResult>>> answers = new ArrayList<>();
            for (int from = 0; from < check.size(); from += MULTI_BATCH) {
                answers.add(read(zk, check.subList(from, Math.min(check.size(), from + MULTI_BATCH))));
            }
            s.await(synced, timeout, "sync before renewing " + check.size() + " hold(s)");
            for (int b = 0; b < answers.size(); b++) {
                List<QueueNode> batch = check.subList(b * MULTI_BATCH, Math.min(check.size(), (b + 1) * MULTI_BATCH));
                List<OpResult> results = s.await(answers.get(b), timeout, "renew " + batch.size() + " hold(s)");
                for (int i = 0; i < batch.size(); i++) {
                    if (results.get(i) instanceof OpResult.GetDataResult r && r.getStat().getEphemeralOwner() == sid
                            && r.getStat().getCzxid() == batch.get(i).czxid) {
                        renewed.add(batch.get(i).owner);
                    }
                }
            }
            s.proof.answered(sid, started);
            s.proof.synced(sid, started); // proves what was answered a ping interval before
            confirm(s, sid, timeout);
        } catch (StoreUnavailableException e) {
            return failed(s, sid, check, e);
        } catch (KeeperException e) {
            return failed(s, sid, check, s.failure("renew " + check.size() + " hold(s)", e));
        }
        if (!s.proof.proven(sid, started)) {
            return failed(s, sid, check, s.unavailable("the leader is not known to have heard the renewal", null));
        }
        for (QueueNode n : check) {
            if (renewed.contains(n.owner)) {
                n.basisNanos = started;
                reaper.armExpiry(n, started, current);
            }
        }
        return renewed;
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

    /** Waits a ping interval after the renewal was answered, then syncs again: success proves the renewal. */
    private static void confirm(Session s, long sid, long timeoutMs) throws KeeperException {
        try {
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(s.proof.delayNanos) + 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HoldfastException("interrupted while renewing", e);
        }
        ZooKeeper zk = s.zk(0);
        if (zk.getSessionId() != sid) {
            throw s.unavailable("the session changed during the renewal", null);
        }
        long sent = System.nanoTime();
        s.await(s.sync(zk), timeoutMs, "sync to confirm a renewal");
        s.proof.answered(sid, sent);
        s.proof.synced(sid, sent);
    }

    /** A failed renewal: deadlines stay if every hold's is proven; else the batch is reported lost. */
    private Set<String> failed(Session s, long sid, List<QueueNode> check, HoldfastException error) {
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
