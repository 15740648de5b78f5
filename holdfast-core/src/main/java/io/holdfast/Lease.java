package io.holdfast;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition: its owner id, token and lease, shared by the hold and every hold re-entered from it.
 * Tracks the local deadline before which the lease is known to be in force, and turns lost when it
 * passes, when the store disowns the hold, or never if it is released first.
 */
final class Lease {
    private static final Logger log = LoggerFactory.getLogger(Lease.class);
    private static final int RELEASE_TRIES = 3;

    final HoldfastClient client;
    final String name;
    final String ownerId;
    final long token;
    final Duration lease;
    final boolean renew;
    final long leaseNanos;
    final long marginNanos;

    // Guarded by this.
    private Hold.State state = Hold.State.HELD;
    private String lossReason;
    private int openHolds;
    private final List<HoldLostListener> listeners = new ArrayList<>();
    private final List<Hold> lostHoldsToTell = new ArrayList<>();
    private ScheduledFuture<?> deadlineCheck;
    private Exception lastRenewalError;

    /** Local deadline; written by the renewer, read anywhere. */
    private volatile long validUntilNanos;
    /** When the renewer should next renew; owned by the renewer. */
    long nextRenewAtNanos;

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

    /**
     * How long before the store's expiry the hold turns invalid locally: a twentieth of the lease, and at
     * least 250 ms where the lease allows (never more than a quarter of it). Covers clock-rate drift
     * between this machine and the store, the time a reply takes to arrive, and a pause of the holder
     * between checking its hold and acting on it.
     */
    static long safetyMargin(long leaseNanos) {
        return Math.max(leaseNanos / 20, Math.min(TimeUnit.MILLISECONDS.toNanos(250), leaseNanos / 4));
    }

    /**
     * Starts renewal, or the deadline watch of a lease that is not renewed. Called once, right after the
     * acquire. The renewer watches the deadlines of renewed leases itself, so the acquire and release of
     * a renewed hold schedule no timer.
     */
    void start() {
        if (renew) {
            client.renewer.add(this);
        } else {
            scheduleDeadlineCheck();
        }
    }

    long validUntilNanos() {
        return validUntilNanos;
    }

    /** Whether the deadline has passed; if so, a lease still held is marked lost. */
    boolean expireIfDue(long nowNanos) {
        boolean passed = nowNanos - validUntilNanos >= 0;
        if (passed && state() == Hold.State.HELD) {
            lose(deadlineReason());
        }
        return passed;
    }

    Hold newHold() {
        synchronized (this) {
            if (state == Hold.State.RELEASED) {
                throw new IllegalStateException("the hold on '" + name + "' was already released");
            }
            openHolds++;
        }
        return new LeasedHold(this);
    }

    boolean isValid() {
        return state() == Hold.State.HELD && !expireIfDue(System.nanoTime());
    }

    synchronized Hold.State state() {
        return state;
    }

    synchronized String lossReason() {
        return lossReason;
    }

    void onLost(Hold hold, HoldLostListener listener) {
        String reason;
        synchronized (this) {
            if (state != Hold.State.LOST) {
                listeners.add(listener);
                lostHoldsToTell.add(hold);
                return;
            }
            reason = lossReason;
        }
        client.events.execute(() -> tell(listener, hold, reason));
    }

    /** A renewal sent at {@code sentNanos} succeeded. */
    void renewed(long sentNanos) {
        long candidate = sentNanos + leaseNanos - marginNanos;
        if (candidate - validUntilNanos > 0) {
            validUntilNanos = candidate;
        }
        synchronized (this) {
            lastRenewalError = null;
        }
        nextRenewAtNanos = sentNanos + leaseNanos / 3;
    }

    /** A renewal failed; try again soon, and no later than the deadline, which then takes the hold. */
    void renewalFailed(Exception error, long nowNanos) {
        synchronized (this) {
            lastRenewalError = error;
        }
        long retryAt = nowNanos + Math.min(leaseNanos / 10, TimeUnit.SECONDS.toNanos(1));
        nextRenewAtNanos = retryAt - validUntilNanos < 0 ? retryAt : validUntilNanos;
    }

    /** Marks the hold lost (once) and tells listeners. */
    void lose(String reason) {
        List<HoldLostListener> toTell;
        List<Hold> holds;
        synchronized (this) {
            if (state != Hold.State.HELD) {
                return;
            }
            state = Hold.State.LOST;
            lossReason = reason;
            toTell = new ArrayList<>(listeners);
            holds = new ArrayList<>(lostHoldsToTell);
            listeners.clear();
            lostHoldsToTell.clear();
            cancelDeadlineCheck();
        }
        client.renewer.remove(this);
        log.warn("hold on '{}' (token {}) lost: {}", name, token, reason);
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
     */
    void closeOne() {
        isValid(); // a deadline that passed while nobody looked (a paused process) makes the hold lost now
        boolean last;
        Hold.State s;
        synchronized (this) {
            openHolds--;
            last = openHolds == 0;
            s = state;
            if (last && s == Hold.State.HELD) {
                cancelDeadlineCheck();
            }
        }
        if (s == Hold.State.HELD && last) {
            boolean released;
            try {
                released = finish(true);
            } catch (RuntimeException e) {
                synchronized (this) {
                    if (state == Hold.State.HELD) {
                        state = Hold.State.RELEASED; // given up by its owner; the lease ends it in the store
                    }
                }
                throw e;
            }
            if (released) {
                synchronized (this) {
                    if (state == Hold.State.HELD) {
                        state = Hold.State.RELEASED;
                        return;
                    }
                }
            } else {
                lose("the store no longer had this hold when it was released: its lease had run out or it was force-released");
            }
            s = state();
            if (s != Hold.State.LOST) {
                return;
            }
        } else if (s == Hold.State.LOST && last) {
            try {
                finish(false); // best effort: the store may still list us if nobody took the lock
            } catch (RuntimeException e) {
                log.debug("release of lost hold on '{}' failed", name, e);
            }
        }
        if (s == Hold.State.LOST) {
            throw new LockLostException("the hold on '" + name + "' (token " + token + ") had been lost before its release: "
                    + lossReason() + "; whatever it guarded may have run alongside another holder");
        }
    }

    /** Releases in the store, whatever happens; for client close and abandoned acquisitions. */
    void releaseQuietly() {
        synchronized (this) {
            if (state == Hold.State.HELD) {
                state = Hold.State.RELEASED;
            }
            cancelDeadlineCheck();
        }
        try {
            finish(true);
        } catch (RuntimeException e) {
            log.debug("release of '{}' failed; its lease will run out", name, e);
        }
    }

    /**
     * Releases in the store, retrying what is transient.
     *
     * @return false if the store said, unambiguously, that this owner no longer held the lock (a first
     *         answer, not a retry's, which may follow a release whose reply was lost)
     */
    private boolean finish(boolean reportFailure) {
        client.renewer.remove(this);
        client.ended(this);
        StoreUnavailableException last = null;
        for (int attempt = 1; attempt <= RELEASE_TRIES; attempt++) {
            try {
                boolean released = client.store.release(name, ownerId);
                client.signalRelease(name);
                return released || last != null;
            } catch (StoreUnavailableException e) {
                last = e;
                if (!reportFailure) {
                    return true;
                }
                sleepQuietly(50L * attempt * attempt);
            }
        }
        throw new StoreUnavailableException(last.backend(), last.address(),
                "could not release '" + name + "' after " + RELEASE_TRIES + " tries; it frees when its lease of "
                        + Durations.format(lease) + " runs out", last);
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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

    private void scheduleDeadlineCheck() {
        synchronized (this) {
            if (state != Hold.State.HELD) {
                return;
            }
            long delay = validUntilNanos - System.nanoTime();
            try {
                deadlineCheck = client.timers.schedule(this::checkDeadline, Math.max(0, delay), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // The client is closing; it releases this lease itself.
            }
        }
    }

    private void checkDeadline() {
        if (System.nanoTime() - validUntilNanos >= 0) {
            lose(deadlineReason());
        } else {
            scheduleDeadlineCheck();
        }
    }

    private void cancelDeadlineCheck() {
        if (deadlineCheck != null) {
            deadlineCheck.cancel(false);
            deadlineCheck = null;
        }
    }
}
