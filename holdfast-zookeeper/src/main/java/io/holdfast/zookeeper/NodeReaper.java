package io.holdfast.zookeeper;

import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Every delete the store issues on its own, in one place:
 * <ul>
 *   <li>the node of a hold whose lease ran out without renewal (a timer per hold, a grace after the
 *       lease, pushed forward by each renewal);</li>
 *   <li>a node whose delete could not be sent or got no answer (a release or give-back during a
 *       connection blip, a create that answered after its owner was released, an owner's duplicate).</li>
 * </ul>
 * Guarantee: a node handed over here is deleted once ZooKeeper answers; the delete is retried about once a
 * second until ZooKeeper answers OK or NONODE, or the node's session ends (its ephemeral nodes then go
 * with it), or the store closes (which ends every session). Each delete names the exact path, which
 * carries this owner's unique id, so it can never remove another owner's node.
 */
final class NodeReaper {
    private static final Logger log = LoggerFactory.getLogger(NodeReaper.class);
    private static final long RETRY_MS = 1_000;
    private static final long EXPIRY_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final ScheduledThreadPoolExecutor timers;
    /** Paths with a delete pending (sent and unanswered, or waiting for its retry). */
    private final Set<String> pending = ConcurrentHashMap.newKeySet();

    NodeReaper(ScheduledThreadPoolExecutor timers) {
        this.timers = timers;
    }

    /** Deletes {@code path}, a node of session {@code sessionId}, retrying until ZooKeeper answers. */
    void delete(Session session, long sessionId, String path) {
        if (pending.add(path)) {
            attempt(session, sessionId, path);
        }
    }

    /**
     * Deletes every node in {@code dir} whose name starts with {@code prefix} (an owner's node whose
     * create reply was lost, so its name is not known), retrying the listing until ZooKeeper answers.
     */
    void deleteOwner(Session session, String dir, String prefix) {
        String key = dir + "/" + prefix;
        if (pending.add(key)) {
            scan(session, dir, prefix, key);
        }
    }

    private void scan(Session session, String dir, String prefix, String key) {
        Runnable again = () -> {
            try {
                timers.schedule(() -> scan(session, dir, prefix, key), RETRY_MS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closing) {
                pending.remove(key);
            }
        };
        try {
            session.zk(0).getChildren(dir, false, (AsyncCallback.ChildrenCallback) (rc, p, ctx, children) -> {
                KeeperException.Code code = KeeperException.Code.get(rc);
                if (code == KeeperException.Code.OK) {
                    pending.remove(key);
                    for (String c : children) {
                        if (c.startsWith(prefix)) {
                            delete(session, 0, dir + "/" + c);
                        }
                    }
                } else if (code == KeeperException.Code.CONNECTIONLOSS || code == KeeperException.Code.OPERATIONTIMEOUT
                        || code == KeeperException.Code.REQUESTTIMEOUT || code == KeeperException.Code.THROTTLEDOP) {
                    again.run();
                } else {
                    pending.remove(key); // no directory (nothing to delete), or a lasting error
                }
            }, null);
        } catch (RuntimeException e) {
            again.run();
        }
    }

    /** How many deletes are still pending, for tests. */
    int pending() {
        return pending.size();
    }

    private void attempt(Session session, long sessionId, String path) {
        long current = session.sessionId();
        if (sessionId != 0 && current != 0 && current != sessionId) {
            pending.remove(path); // that session is over (or ends on its own): its ephemeral node goes with it
            return;
        }
        ZooKeeper zk;
        try {
            zk = session.zk(0);
        } catch (RuntimeException e) {
            retry(session, sessionId, path);
            return;
        }
        try {
            zk.delete(path, -1, (AsyncCallback.VoidCallback) (rc, p, ctx) -> answered(session, sessionId, path, rc), null);
        } catch (RuntimeException e) {
            retry(session, sessionId, path);
        }
    }

    private void answered(Session session, long sessionId, String path, int rc) {
        KeeperException.Code code = KeeperException.Code.get(rc);
        switch (code) {
            case OK, NONODE, SESSIONEXPIRED -> {
                pending.remove(path);
                log.debug("deleted {} in the background: {}", path, code);
            }
            case CONNECTIONLOSS, OPERATIONTIMEOUT, REQUESTTIMEOUT, SESSIONMOVED, THROTTLEDOP, NEWCONFIGNOQUORUM, RECONFIGINPROGRESS ->
                    retry(session, sessionId, path);
            default -> {
                pending.remove(path);
                log.warn("could not delete {} ({}); it ends with its session", path, code);
            }
        }
    }

    private void retry(Session session, long sessionId, String path) {
        try {
            timers.schedule(() -> attempt(session, sessionId, path), RETRY_MS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            pending.remove(path); // the store closes its sessions, and their nodes go with them
        }
    }

    /**
     * (Re)arms the lease timer of {@code node}: its node is deleted a grace (a tenth of the lease, at
     * least 250 ms) after {@code fromNanos} + lease, unless a renewal re-arms it first and while
     * {@code current} says the node is still its owner's. The hold turned invalid locally a margin
     * before the lease ended; the grace keeps that head start when this machine's threads run late.
     */
    void armExpiry(QueueNode node, long fromNanos, Predicate<QueueNode> current) {
        long lease = TimeUnit.MILLISECONDS.toNanos(node.leaseMs);
        long delay = fromNanos + lease + Math.max(EXPIRY_GRACE_NANOS, lease / 10) - System.nanoTime();
        synchronized (node) {
            if (node.expiry != null) {
                node.expiry.cancel(false);
            }
            try {
                node.expiry = timers.schedule(() -> {
                    if (current.test(node)) {
                        log.debug("lease of {} ran out without renewal; deleting its node", node.path);
                        delete(node.session, node.sessionId, node.path);
                    }
                }, Math.max(0, delay), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                node.expiry = null; // closing
            }
        }
    }
}
