package io.holdfast;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition's lease: its owner id and token, shared by the first hold and every hold re-entered
 * from it, as a state machine.
 *
 * <pre>
 *   HELD ──last hold closed──▶ RELEASING ──store freed it, or could not be told──▶ RELEASED
 *     │                            └──store no longer had it──▶ LOST
 *     └──deadline passed, store disowned it, force-released──▶ LOST
 * </pre>
 *
 * <p>The local deadline ({@code validUntil}) is the send time of the last acquire or renewal that
 * succeeded, plus the lease, minus a safety margin, so it passes before the store can free the lock. The
 * client's {@link Deadlines}, on its timer thread, watch it whether or not the lease is renewed; renewals only
 * move it later. Invariants, checked on every transition: new holds are made only in HELD with a hold open;
 * LOST and RELEASED are final; hold-lost listeners are told exactly once, and only on the way into LOST;
 * the client's {@link LockListener}s are told exactly once, outside the monitor, by whoever moved the lease
 * into RELEASED or LOST, and of a failed renewal only while HELD.
 */
final class Lease {
    private static final Logger log = LoggerFactory.getLogger(Lease.class);
    private static final int RELEASE_TRIES = 3;

    enum State { HELD, RELEASING, RELEASED, LOST }

    /** Every legal transition; {@link #move} refuses the rest. */
    private static final Map<State, Set<State>> ALLOWED = new EnumMap<>(Map.of(
            State.HELD, EnumSet.of(State.RELEASING, State.LOST),
            State.RELEASING, EnumSet.of(State.RELEASED, State.LOST),
            State.RELEASED, EnumSet.noneOf(State.class),
            State.LOST, EnumSet.noneOf(State.class)));

    final HoldfastClient client;
    final String name;
    final String ownerId;
    final long token;
    final Duration lease;
    final boolean renew;
    final long leaseNanos;
    final long marginNanos;
    /** When the grant arrived; a hold's time held is measured from here. */
    final long grantedAtNanos = System.nanoTime();

    // Guarded by this.
    private State state = State.HELD;
    private String lossReason;
    private int openHolds;
    private final List<HoldLostListener> listeners = new ArrayList<>();
    private final List<Hold> lostHoldsToTell = new ArrayList<>();
    private Exception lastRenewalError;

    /** Local deadline; moved later by successful renewals, read anywhere. */
    private volatile long validUntilNanos;
    /** When the renewer should next renew this lease; written by the renewer only after construction. */
    volatile long nextRenewAtNanos;

    Lease(HoldfastClient client, String name, String ownerId, long token, Duration lease, boolean renew, long sentNanos) {
        this.client = client;
        this.name = name;
        this.ownerId = ownerId;
        this.token = token;
        this.lease = lease;
        this.renew = renew;
        this.leaseNanos = lease.toNanos();
        this.marginNanos = safetyMargin(leaseNanos);
        this.validUntilNanos = sentNanos + leaseNanos - marginNanos;
        this.nextRenewAtNanos = sentNanos + leaseNanos / 3;
    }

    /** See {@link io.holdfast.spi.SafetyMargin}. */
    static long safetyMargin(long leaseNanos) {
        return io.holdfast.spi.SafetyMargin.nanos(leaseNanos);
    }

    /** Returns the first hold and starts the deadline watch and, if renewed, renewal. Called once. */
    Hold start() {
        Hold first;
        synchronized (this) {
            openHolds = 1;
            first = new LeasedHold(this);
        }
        client.deadlines.watch(this);
        if (renew) {
            client.renewer.add(this);
        }
        return first;
    }

    /** A further hold on this lease (re-entry). */
    Hold reenter() {
        synchronized (this) {
            if (state != State.HELD || openHolds == 0) {
                throw new IllegalStateException("the hold on '" + name + "' was already released; acquire the lock again");
            }
            openHolds++;
        }
        return new LeasedHold(this);
    }

    long validUntilNanos() {
        return validUntilNanos;
    }

    /** True while HELD and before the deadline; a deadline found passed makes the lease lost now. */
    boolean isValid() {
        if (state() != State.HELD) {
            return false;
        }
        if (System.nanoTime() - validUntilNanos >= 0) {
            loseIfHeld(deadlineReason());
            return false;
        }
        return true;
    }

    synchronized State state() {
        return state;
    }

    synchronized String lossReason() {
        return lossReason;
    }

    void onLost(Hold hold, HoldLostListener listener) {
        String reason;
        synchronized (this) {
            if (state != State.LOST) {
                listeners.add(listener);
                lostHoldsToTell.add(hold);
                return;
            }
            reason = lossReason;
        }
        client.events.execute(() -> tell(listener, hold, reason));
    }

    /** A renewal sent at {@code sentNanos} succeeded: move the deadline and the next renewal later. */
    void renewed(long sentNanos) {
        long candidate = sentNanos + leaseNanos - marginNanos;
        synchronized (this) {
            if (candidate - validUntilNanos > 0) {
                validUntilNanos = candidate;
            }
            lastRenewalError = null;
        }
        nextRenewAtNanos = sentNanos + leaseNanos / 3;
    }

    /** A renewal failed or got no answer: retry soon; the deadline timer ends the lease if none succeeds. */
    void renewalFailed(Exception error, long nowNanos) {
        boolean held;
        synchronized (this) {
            lastRenewalError = error;
            held = state == State.HELD;
        }
        long retryAt = nowNanos + Math.min(leaseNanos / 10, TimeUnit.SECONDS.toNanos(1));
        long deadline = validUntilNanos;
        nextRenewAtNanos = retryAt - deadline < 0 ? retryAt : deadline;
        if (held) {
            client.listeners.renewalFailed(name, token, error);
        }
    }

    /** Marks a HELD lease lost (the deadline passed, the store disowned it), once, and tells the listeners. */
    void loseIfHeld(String reason) {
        lose(State.HELD, reason);
    }

    /** Marks a lease in {@code from} lost, once, and tells the listeners. */
    private void lose(State from, String reason) {
        List<HoldLostListener> toTell;
        List<Hold> holds;
        synchronized (this) {
            if (state != from) {
                return;
            }
            move(State.LOST);
            lossReason = reason;
            toTell = new ArrayList<>(listeners);
            holds = new ArrayList<>(lostHoldsToTell);
            listeners.clear();
            lostHoldsToTell.clear();
        }
        client.renewer.remove(this);
        log.warn("hold on '{}' (token {}) lost: {}", name, token, reason);
        client.listeners.lost(name, token, grantedAtNanos, reason);
        for (int i = 0; i < toTell.size(); i++) {
            HoldLostListener l = toTell.get(i);
            Hold h = holds.get(i);
            client.events.execute(() -> tell(l, h, reason));
        }
    }

    private static void tell(HoldLostListener listener, Hold hold, String reason) {
        try {
            listener.holdLost(hold, reason);
        } catch (RuntimeException e) {
            log.error("a hold-lost listener threw", e);
        }
    }

    /**
     * One of the holds sharing this lease was closed. The last one releases the lock in the store.
     *
     * @throws LockLostException if the lease had been lost
     * @throws StoreUnavailableException if the store could not be told (the lock frees with its lease)
     */
    void closeOne() {
        isValid(); // a deadline that passed while nobody looked (a paused process) makes the hold lost now
        boolean release;
        synchronized (this) {
            if (--openHolds > 0) {
                return;
            }
            release = state == State.HELD;
            if (release) {
                move(State.RELEASING);
            } else if (state != State.LOST) {
                return; // released by the client's close already
            }
        }
        if (!release) {
            releaseInStore(false); // best effort: the store may still list us if nobody took the lock
            throw lostError();
        }
        boolean released;
        try {
            released = releaseInStore(true);
        } catch (RuntimeException e) {
            settleReleased(); // given up by its owner; the lease ends it in the store
            throw e;
        }
        if (released) {
            settleReleased();
            return;
        }
        lose(State.RELEASING, "the store no longer had this hold when it was released: its lease had run out or it was force-released");
        throw lostError();
    }

    private LockLostException lostError() {
        return new LockLostException("the hold on '" + name + "' (token " + token + ") had been lost before its release: "
                + lossReason() + "; whatever it guarded may have run alongside another holder");
    }

    /** Releases in the store whatever the state, quietly; for the client's close and unwanted grants. */
    void releaseQuietly() {
        synchronized (this) {
            if (state == State.HELD) {
                move(State.RELEASING);
            }
        }
        try {
            releaseInStore(true);
        } catch (RuntimeException e) {
            log.debug("release of '{}' failed; its lease will run out", name, e);
        }
        settleReleased();
    }

    /** RELEASING ends in RELEASED, once; the listeners are told by whoever made that move. */
    private void settleReleased() {
        synchronized (this) {
            if (state != State.RELEASING) {
                return;
            }
            move(State.RELEASED);
        }
        client.listeners.released(name, token, grantedAtNanos);
    }

    /**
     * Releases in the store, retrying what is transient, with the caller's interrupt flag set aside (a
     * release already sent must not be reported as failed because the thread was interrupted).
     *
     * @return false if the store said, unambiguously, that this owner no longer held the lock (a first
     *         answer, not a retry's, which may follow a release whose reply was lost)
     */
    private boolean releaseInStore(boolean retry) {
        client.renewer.remove(this);
        client.ended(this);
        boolean interrupted = Thread.interrupted();
        try {
            StoreUnavailableException last = null;
            for (int attempt = 1; attempt <= RELEASE_TRIES; attempt++) {
                try {
                    boolean released = client.store.release(name, ownerId);
                    client.signalRelease(name);
                    return released || last != null;
                } catch (StoreUnavailableException e) {
                    last = e;
                    if (!retry) {
                        return true;
                    }
                    sleepUninterruptibly(50L * attempt * attempt);
                }
            }
            GiveBack.start(client, name, ownerId, lease); // keeps trying in the background, for as long as the lease
            throw new StoreUnavailableException(last.backend(), last.address(),
                    "could not release '" + name + "' after " + RELEASE_TRIES + " tries; it frees when its lease of "
                            + Durations.format(lease) + " runs out, or sooner if a retry in the background reaches the store", last);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void sleepUninterruptibly(long ms) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        for (long left = ms; left > 0; left = TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())) {
            try {
                Thread.sleep(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private String deadlineReason() {
        Exception error;
        synchronized (this) {
            error = lastRenewalError;
        }
        if (!renew) {
            return "its lease of " + Durations.format(lease) + " ran out (renewal was off)";
        }
        return "its lease of " + Durations.format(lease) + " could not be renewed in time"
                + (error == null ? "" : " (last error: " + error.getMessage() + ")");
    }

    /** The single place where the state changes. */
    private void move(State next) {
        if (!ALLOWED.get(state).contains(next)) {
            throw Invariants.violated("lease on '" + name + "': no transition " + state + " -> " + next);
        }
        state = next;
        if (next != State.HELD) {
            client.deadlines.forget(this);
        }
    }
}
