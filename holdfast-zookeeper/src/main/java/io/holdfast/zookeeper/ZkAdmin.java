package io.holdfast.zookeeper;

import io.holdfast.HoldfastException;
import io.holdfast.LockInfo;
import io.holdfast.LockNames;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * The operators' calls: status, listing by prefix, and force-release. All run in the store's first
 * session; none of them changes what this client holds.
 */
final class ZkAdmin {
    private static final int LIST_MAX_DIRECTORIES = 10_000;
    private static final int RACE_RETRIES = 5;

    private final ZooKeeperUri uri;
    private final Session first;
    private final long requestTimeoutMs;

    ZkAdmin(ZooKeeperUri uri, Session first, long requestTimeoutMs) {
        this.uri = uri;
        this.first = first;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    private List<String> children(ZooKeeper zk, String dir, String what) throws KeeperException {
        return QueueNodes.children(first, zk, dir, what);
    }

    /**
     * A {@code sync} before an operator's read: the server this session talks to (perhaps a follower) has then applied
     * every write the leader committed before the call, so a lock released by any client before {@code status} or
     * {@code list} began is never shown held.
     */
    private void caughtUp(ZooKeeper zk, String what) throws KeeperException {
        first.catchUp(zk, what, requestTimeoutMs);
    }


    Optional<LockInfo> inspect(String name) {
        String dir = LockNodes.dir(uri.basePath, name);
        String what = "inspect '" + name + "'";
        try {
            ZooKeeper zk = first.zk(requestTimeoutMs);
            caughtUp(zk, what);
            for (int i = 0; i < RACE_RETRIES; i++) {
                List<String> children;
                try {
                    children = first.call(zk, what, z -> z.getChildren(dir, false));
                } catch (KeeperException.NoNodeException e) {
                    return Optional.empty();
                }
                Optional<LockInfo> info = holderOf(zk, name, dir, children, what);
                if (info != null) {
                    return info;
                }
            }
            return Optional.of(new LockInfo(name, false, null, null, 0, null)); // changing hands too fast to catch
        } catch (KeeperException e) {
            throw first.failure(what, e);
        }
    }

    /** The lock's state from its directory's children; null if the holder vanished while being read. */
    private Optional<LockInfo> holderOf(ZooKeeper zk, String name, String dir, List<String> children, String what) throws KeeperException {
        List<String> queue = LockNodes.queue(children);
        if (queue.isEmpty()) {
            return Optional.of(new LockInfo(name, false, null, null, 0, null));
        }
        String head = queue.get(0);
        Stat stat = new Stat();
        byte[] data;
        try {
            data = first.call(zk, what, z -> z.getData(dir + "/" + head, false, stat));
        } catch (KeeperException.NoNodeException e) {
            return null;
        }
        long outlives = LockNodes.longField(data, "session", LockNodes.longField(data, "lease", 0));
        return Optional.of(new LockInfo(name, true, LockNodes.field(data, "holder"), LockNodes.owner(head), stat.getCzxid(),
                outlives > 0 ? Duration.ofMillis(outlives) : null));
    }


    List<LockInfo> list(String prefix, int limit) {
        int slash = prefix.lastIndexOf('/');
        String dirName = slash < 0 ? "" : prefix.substring(0, slash);
        String partial = prefix.substring(slash + 1);
        if (!dirName.isEmpty()) {
            try {
                LockNames.requireValid(dirName);
            } catch (IllegalArgumentException e) {
                return List.of(); // no lock name starts with it
            }
        }
        if (!partial.isEmpty()) {
            try {
                LockNames.requireValid(partial);
            } catch (IllegalArgumentException e) {
                return List.of();
            }
        }
        String what = "list locks under '" + prefix + "'";
        String start = dirName.isEmpty() ? uri.basePath : LockNodes.dir(uri.basePath, dirName);
        List<LockInfo> held = new ArrayList<>();
        try {
            ZooKeeper zk = first.zk(requestTimeoutMs);
            caughtUp(zk, what);
            Deque<String> toVisit = new ArrayDeque<>();
            for (String sub : LockNodes.subdirectories(children(zk, start, what))) {
                if (sub.replace("%2E", ".").startsWith(partial)) {
                    toVisit.push(start + "/" + sub);
                }
            }
            int visited = 0;
            while (!toVisit.isEmpty()) {
                if (++visited > LIST_MAX_DIRECTORIES) {
                    throw new HoldfastException("listing locks under '" + prefix + "' visits more than " + LIST_MAX_DIRECTORIES
                            + " ZooKeeper directories; use a longer prefix");
                }
                String dir = toVisit.pop();
                List<String> children = children(zk, dir, what);
                String name = LockNodes.name(uri.basePath, dir);
                Optional<LockInfo> info = null;
                for (int i = 0; i < RACE_RETRIES && info == null; i++) {
                    info = holderOf(zk, name, dir, children, what);
                    if (info == null) {
                        children = children(zk, dir, what);
                    }
                }
                if (info != null && info.isPresent() && info.get().held()) {
                    held.add(info.get());
                }
                for (String sub : LockNodes.subdirectories(children)) {
                    toVisit.push(dir + "/" + sub);
                }
            }
        } catch (KeeperException e) {
            throw first.failure(what, e);
        }
        held.sort(Comparator.comparing(LockInfo::name));
        return held.size() > limit ? List.copyOf(held.subList(0, limit)) : held;
    }


    boolean forceRelease(String name) {
        String dir = LockNodes.dir(uri.basePath, name);
        String what = "force-release '" + name + "'";
        try {
            ZooKeeper zk = first.zk(requestTimeoutMs);
            caughtUp(zk, what);
            for (int i = 0; i < RACE_RETRIES; i++) {
                List<String> queue = LockNodes.queue(children(zk, dir, what));
                if (queue.isEmpty()) {
                    return false;
                }
                String head = dir + "/" + queue.get(0);
                try {
                    first.call(zk, what, z -> {
                        z.delete(head, -1);
                        return null;
                    });
                    return true;
                } catch (KeeperException.NoNodeException e) {
                    // released meanwhile; the next in line may hold it now
                }
            }
            return false;
        } catch (KeeperException e) {
            throw first.failure(what, e);
        }
    }
}
