package io.holdfast.zookeeper;

import io.holdfast.StoreUnavailableException;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The owner to queue-node registry, with the protection against a create whose reply was lost (the
 * GUID protection of Curator's recipe): such an owner is <i>uncertain</i>, and its next attempt looks
 * for a node carrying its owner id before creating one; a node created after its owner was released
 * (the create was in flight) is deleted when the create answers.
 */
final class QueueNodes {
    private static final int RACE_RETRIES = 5;

    private final List<ACL> acl;
    private final long requestTimeoutMs;
    private final NodeReaper reaper;
    /** The queue node of each owner this store created and has not released. */
    private final ConcurrentHashMap<String, QueueNode> nodes = new ConcurrentHashMap<>();
    /** Owners whose create may have succeeded without this store seeing the reply. */
    private final Set<String> uncertain = ConcurrentHashMap.newKeySet();
    // Guarded by creating: creates in flight per owner, and owners released while one was in flight.
    private final Map<String, Integer> creating = new HashMap<>();
    private final Set<String> releasedWhileCreating = new HashSet<>();

    QueueNodes(List<ACL> acl, long requestTimeoutMs, NodeReaper reaper) {
        this.acl = acl;
        this.requestTimeoutMs = requestTimeoutMs;
        this.reaper = reaper;
    }

    QueueNode get(String owner) {
        return nodes.get(owner);
    }

    /** Whether {@code node} is still its owner's current node. */
    boolean current(QueueNode node) {
        return nodes.get(node.owner) == node;
    }

    boolean uncertain(String owner) {
        return uncertain.contains(owner);
    }

    /** Drops the record of {@code node} and its lease timer (the node itself is deleted by the caller). */
    void forget(QueueNode node) {
        nodes.remove(node.owner, node);
        node.cancelExpiry();
    }

    /** Drops the uncertainty of an owner that was released. */
    void forgetOwner(String owner) {
        uncertain.remove(owner);
    }

    /** Marks a release: a create of {@code owner} still in flight deletes its node when it answers. */
    void released(String owner) {
        synchronized (creating) {
            if (creating.containsKey(owner)) {
                releasedWhileCreating.add(owner);
            }
        }
    }

    record Created(QueueNode node, List<String> children) {
    }

    /**
     * Creates the owner's queue node and lists the directory, pipelined: ZooKeeper answers a session's
     * requests in order, so the listing includes the new node, and both cost one round trip.
     */
    Created createAndList(Session s, ZooKeeper zk, String name, String dir, String owner, byte[] data, long leaseMs) throws KeeperException {
        String prefix = dir + "/" + LockNodes.nodePrefix(owner);
        String what = "acquire '" + name + "'";
        for (int attempt = 0; ; attempt++) {
            CompletableFuture<Stat> created = new CompletableFuture<>();
            CompletableFuture<List<String>> listed = new CompletableFuture<>();
            String[] createdPath = new String[1];
            long sid = zk.getSessionId();
            beginCreate(owner);
            try {
                zk.create(prefix, data, acl, CreateMode.EPHEMERAL_SEQUENTIAL, (AsyncCallback.Create2Callback) (rc, path, ctx, actual, stat) -> {
                    createdPath[0] = actual;
                    endCreate(s, sid, owner, rc, actual);
                    Session.complete(created, rc, path, stat);
                }, null);
            } catch (RuntimeException e) {
                endCreate(s, sid, owner, KeeperException.Code.CONNECTIONLOSS.intValue(), null);
                throw e;
            }
            zk.getChildren(dir, false, (AsyncCallback.ChildrenCallback) (rc, path, ctx, kids) -> Session.complete(listed, rc, path, kids), null);
            // The replies, and so their callbacks, come in order: once the listing is in, so is the create.
            // Waiting for the listing first wakes this thread once.
            List<String> children;
            try {
                children = s.await(listed, requestTimeoutMs, what);
            } catch (KeeperException e) {
                children = null; // no directory: the create failed alike, and says so below
            } catch (StoreUnavailableException e) {
                uncertain.add(owner); // the create may have happened: look for it before creating again
                throw e;
            }
            Stat stat;
            try {
                stat = s.await(created, requestTimeoutMs, what);
            } catch (KeeperException.NoNodeException e) {
                if (attempt >= RACE_RETRIES) {
                    throw e;
                }
                mkdirs(s, zk, dir, what); // a new name, or a directory the server removed once it was empty
                continue;
            } catch (StoreUnavailableException e) {
                uncertain.add(owner);
                throw e;
            }
            String child = createdPath[0].substring(dir.length() + 1);
            QueueNode node = new QueueNode(owner, name, dir, child, stat.getCzxid(), stat.getEphemeralOwner(), s, leaseMs);
            nodes.put(owner, node);
            uncertain.remove(owner);
            return new Created(node, children == null ? List.of() : children);
        }
    }

    /**
     * Finds and takes over the owner's node left by a create whose reply was lost: the lowest node
     * carrying the owner id; any other is a duplicate and deleted.
     */
    QueueNode adopt(Session s, ZooKeeper zk, long sid, String name, String dir, String owner, long leaseMs, List<String> children)
            throws KeeperException {
        String prefix = LockNodes.nodePrefix(owner);
        List<String> mine = new ArrayList<>();
        for (String c : LockNodes.queue(children)) {
            if (c.startsWith(prefix)) {
                mine.add(c);
            }
        }
        if (mine.isEmpty()) {
            return null;
        }
        for (String extra : mine.subList(1, mine.size())) {
            reaper.delete(s, sid, dir + "/" + extra);
        }
        String child = mine.get(0);
        Stat stat = s.call(zk, "find the queue node of '" + name + "'", z -> z.exists(dir + "/" + child, false));
        if (stat == null) {
            return null;
        }
        if (stat.getEphemeralOwner() != sid) {
            reaper.delete(s, stat.getEphemeralOwner(), dir + "/" + child); // from an earlier session of ours: it dies anyway
            return null;
        }
        QueueNode node = new QueueNode(owner, name, dir, child, stat.getCzxid(), sid, s, leaseMs);
        nodes.put(owner, node);
        uncertain.remove(owner);
        return node;
    }

    private void beginCreate(String owner) {
        synchronized (creating) {
            creating.merge(owner, 1, Integer::sum);
        }
    }

    /** A create answered (or failed); deletes its node if the owner was released meanwhile. */
    private void endCreate(Session s, long sid, String owner, int rc, String path) {
        boolean released;
        synchronized (creating) {
            Integer left = creating.merge(owner, -1, Integer::sum);
            if (left == null || left <= 0) {
                creating.remove(owner);
                released = releasedWhileCreating.remove(owner);
            } else {
                released = releasedWhileCreating.contains(owner);
            }
        }
        if (released && rc == KeeperException.Code.OK.intValue() && path != null) {
            reaper.delete(s, sid, path);
        }
    }

    /** Creates the missing directories of {@code dir}, as container nodes. */
    private void mkdirs(Session s, ZooKeeper zk, String dir, String what) throws KeeperException {
        Deque<String> missing = new ArrayDeque<>();
        missing.push(dir);
        while (!missing.isEmpty()) {
            String path = missing.peek();
            try {
                s.call(zk, what, z -> z.create(path, new byte[0], acl, CreateMode.CONTAINER));
                missing.pop();
            } catch (KeeperException.NodeExistsException e) {
                missing.pop();
            } catch (KeeperException.NoNodeException e) {
                int slash = path.lastIndexOf('/');
                if (slash <= 0 || missing.size() > 64) {
                    throw e;
                }
                missing.push(path.substring(0, slash));
            }
        }
    }

    /** A directory's children; empty if it does not exist. */
    static List<String> children(Session s, ZooKeeper zk, String dir, String what) throws KeeperException {
        try {
            return s.call(zk, what, z -> z.getChildren(dir, false));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }
}
