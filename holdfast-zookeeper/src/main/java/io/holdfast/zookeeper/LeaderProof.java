package io.holdfast.zookeeper;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * What this client can prove the ensemble's leader has heard from one session.
 *
 * <p>Only the leader expires sessions, and it learns that a client touched its session on a follower
 * from that follower's replies to its pings, one every tickTime/2. So a request answered by a follower
 * proves nothing to the leader by itself. But a {@code sync} is forwarded to the leader on the same
 * connection as the follower's ping replies, after them (TCP keeps order), and a follower cut off from
 * the leader cannot answer it. Hence: if a request sent at <i>x</i> was answered, and a {@code sync}
 * sent at least one ping interval after that answer arrived succeeded, the leader has heard from the session at or after
 * <i>x</i>, and cannot expire it before <i>x</i> + session timeout. That <i>x</i> is the session's proven
 * instant. Everything here is {@link System#nanoTime()} on this machine.
 */
final class LeaderProof {
    private static final int HISTORY = 64;

    /** At least one ping interval of the leader (tickTime/2), with slack. */
    final long delayNanos;
    // Guarded by this.
    private long sessionId;
    private boolean anyProven;
    private long provenNanos;
    /** Answered requests not yet proven, oldest first: {send time, time the answer arrived}. */
    private final ArrayDeque<long[]> answered = new ArrayDeque<>();
    private boolean backgroundPlanned;
    /** When the last background {@code sync} planned is due. */
    private long backgroundDueNanos;

    LeaderProof(long delayNanos) {
        this.delayNanos = delayNanos;
    }

    private void switchTo(long sid) {
        if (sid != sessionId) {
            sessionId = sid;
            anyProven = false;
            answered.clear();
        }
    }

    /** A request of session {@code sid} sent at {@code sentNanos} was answered just now. */
    void answered(long sid, long sentNanos) {
        answered(sid, sentNanos, System.nanoTime());
    }

    /** A request of session {@code sid} sent at {@code sentNanos} was answered at {@code answeredNanos}. */
    synchronized void answered(long sid, long sentNanos, long answeredNanos) {
        switchTo(sid);
        if (answered.isEmpty() || sentNanos - answered.peekLast()[0] > 0) {
            answered.addLast(new long[] {sentNanos, answeredNanos});
            if (answered.size() > HISTORY) {
                answered.removeFirst();
            }
        }
    }

    /** A {@code sync} of session {@code sid} sent at {@code syncSentNanos} succeeded. */
    synchronized void synced(long sid, long syncSentNanos) {
        switchTo(sid);
        for (Iterator<long[]> it = answered.iterator(); it.hasNext(); ) {
            long[] request = it.next();
            if (syncSentNanos - request[1] < delayNanos) {
                break;
            }
            long x = request[0];
            if (!anyProven || x - provenNanos > 0) {
                provenNanos = x;
                anyProven = true;
            }
            it.remove();
        }
    }

    /**
     * Plans a background {@code sync} to prove what was answered just now: one sent a ping interval from now, or a
     * little later. One {@code sync} due then proves every answer before it, so a sync already planned no sooner than
     * a ping interval from now serves too; otherwise a new one is planned an eighth of a ping interval later still,
     * so that the answers of that eighth share it (a busy client sends about eight proofs per ping interval, not one
     * per acquire).
     *
     * @return the delay after which the caller sends the new {@code sync}, or -1 if one already planned serves
     */
    synchronized long planBackgroundSync(long nowNanos) {
        long earliest = nowNanos + delayNanos;
        if (backgroundPlanned && backgroundDueNanos - earliest >= 0) {
            return -1;
        }
        backgroundPlanned = true;
        backgroundDueNanos = earliest + delayNanos / 8;
        return backgroundDueNanos - nowNanos;
    }

    /** Whether the leader is known to have heard from session {@code sid} at or after {@code instantNanos}. */
    synchronized boolean proven(long sid, long instantNanos) {
        return sid == sessionId && anyProven && provenNanos - instantNanos >= 0;
    }
}
