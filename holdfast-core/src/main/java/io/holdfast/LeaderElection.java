package io.holdfast;

import java.util.OptionalLong;

/**
 * A candidacy in the election of one leader among the processes that call {@code holdfast.leader(name)}: on
 * every backend, the leader is whoever holds the lock called {@code name}.
 *
 * <pre>{@code
 * LeaderElection election = holdfast.leader("cron/nightly");
 * election.onElected(term -> scheduler.start(term));
 * election.onRevoked((term, reason) -> scheduler.stop());
 * election.start();
 * ...
 * election.close();   // resigns
 * }</pre>
 *
 * <p>Guarantees:
 * <ul>
 * <li><b>Terms.</b> Each leadership is one acquisition of the lock, and its term is that hold's fencing token:
 *     greater than every term before it. Pass it to the resources the leader writes, and have them refuse a
 *     lower one; that is what keeps a leader paused past its lease (a GC pause, a stopped VM) harmless.</li>
 * <li><b>Revoked before a successor.</b> Leadership ends at the hold's local deadline (send time of its last
 *     successful renewal + lease − safety margin), which passes before the store can free the lock for
 *     another candidate: {@link #isLeader()} is false from that deadline on, and the revoked listeners are told
 *     right after it. A hold the store reports lost (an operator's force-release) is revoked when the next
 *     renewal finds out, within a third of the lease.</li>
 * <li><b>Candidates queue without a herd.</b> A candidate waits for the lock as any waiter does: where the store
 *     orders waiters (ZooKeeper, etcd) each watches only its predecessor; elsewhere one waiter per process polls,
 *     woken by the store's release notifications where it has them.</li>
 * <li><b>Back in the race.</b> A revoked candidate waits for the lock again, until it is closed.</li>
 * </ul>
 *
 * <p>Listeners are called on the client's event thread, one at a time, in the order of the events: a term's
 * elected call before its revoked call, and that before the next term's elected call. Keep them short (hand
 * long work to an executor of your own); they are called outside every lock of the election, so they may call
 * its methods, {@link #close()} included. Closing the {@link Holdfast} client closes its elections.
 */
public interface LeaderElection extends AutoCloseable {

    /** Where a candidacy stands. */
    enum State {
        /** Made, not started. */
        IDLE,
        /** Waiting for the lock. */
        CANDIDATE,
        /** Holding the lock, before its deadline. */
        LEADER,
        /** Closed: resigned if it was leader, out of the race for good. */
        CLOSED
    }

    /** Told when this candidate is elected. */
    @FunctionalInterface
    interface ElectedListener {
        /** @param term the new leadership's term: its fencing token */
        void elected(long term);
    }

    /** Told when this candidate's leadership ends: lost, resigned by {@link #close()}, or its client closed. */
    @FunctionalInterface
    interface RevokedListener {
        /**
         * @param term the term that ended
         * @param reason why, for a log line
         */
        void revoked(long term, String reason);
    }

    /** The name of the lock the candidates compete for. */
    String name();

    /**
     * Enters the race: waits for the lock, without blocking the caller.
     *
     * @throws IllegalStateException if already started, or closed
     */
    void start();

    /** True while this candidate leads: its hold is valid (before its deadline) and the election is not closed. */
    boolean isLeader();

    /** The term (fencing token) of this candidate's current leadership; empty unless {@link #isLeader()}. */
    OptionalLong term();

    /** Where this candidacy stands; {@link State#LEADER} only while {@link #isLeader()}. */
    State state();

    /** Adds a listener told of every later election of this candidate. Add it before {@link #start()} to hear of all. */
    void onElected(ElectedListener listener);

    /** Adds a listener told of every later end of a leadership of this candidate. */
    void onRevoked(RevokedListener listener);

    /**
     * Leaves the race: a waiting candidate stops waiting, and a leader resigns: {@link #isLeader()} turns false,
     * its revoked listeners are told (on the event thread), and the lock is released before this returns, so a
     * successor can be elected at once. The listeners may hear of it after the release: stop the leader's work
     * before closing. Calling it again does nothing. Never throws: a release the store could not be told of
     * frees the lock when its lease runs out.
     */
    @Override
    void close();
}
