package io.holdfast;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One wait for every part of a {@link MultiLock}, as a state machine: the parts are waited for one at a time,
 * in ascending name order, each with what is left of the one deadline.
 *
 * <pre>
 *   WAITING(part i) ──part i granted, more to take──▶ WAITING(part i+1)
 *      │ last part granted ──▶ CHECKING (every part checked, outside the lock)
 *      │ part i timed out or failed, the caller gave up (cancel, complete, interrupt) ──▶ DONE (parts taken given back)
 *   CHECKING ──every part valid──▶ DONE (the future gets a hold on every part)
 *            ──a part lost while later ones were awaited (an unrenewed lease ran out, a force-release found by
 *              renewal), deadline ahead──▶ WAITING(part 0) (every part given back first, then taken again in order)
 *            ──a part lost, deadline passed──▶ DONE (every part given back; a time-out)
 *            ──the caller gave up──▶ DONE (the check gives back what it holds)
 * </pre>
 *
 * <p>Invariants, checked on every transition: in WAITING, the parts taken are exactly the parts before the one
 * waited for, and at most one part's wait is in flight; in CHECKING and DONE this object's fields hold no part
 * and no wait is in flight (in CHECKING the check owns every part); DONE is final. A part's hold has one owner at
 * any time: the grant's callback either adds it to the parts taken (in WAITING) or, otherwise, releases it;
 * whoever moves to CHECKING or DONE owns the parts taken. Every transition happens in {@link #move} under this
 * object's lock; part waits, checks, releases and the future's completion run outside it, and give-backs run on
 * the client's I/O pool, never on the thread that completed the future (the caller's, or the JDK's one delayer
 * thread for {@code orTimeout}). {@link #settled} completes once the acquire holds nothing more.
 */
final class MultiAcquisition {
    enum State {
        /** A part's wait is in flight. */
        WAITING,
        /** Every part taken: each is being checked; the check owns them. */
        CHECKING,
        /** Over: the future is (being) completed; what was taken is handed to the hold or being given back. */
        DONE
    }

    private static final Map<State, Set<State>> ALLOWED = new EnumMap<>(Map.of(
            State.WAITING, EnumSet.of(State.WAITING, State.CHECKING, State.DONE),
            State.CHECKING, EnumSet.of(State.WAITING, State.DONE),
            State.DONE, EnumSet.noneOf(State.class)));

    final CompletableFuture<MultiHold> future = new CompletableFuture<>();
    /** Completes once this acquire holds nothing: what it took is in the caller's hold or given back. */
    final CompletableFuture<Void> settled = new CompletableFuture<>();
    private final MultiLockHandle lock;
    private final Duration wait;
    private final boolean forever;
    private final long deadlineNanos;

    // Guarded by this.
    private State state = State.WAITING;
    private int waitingFor;
    private final List<Hold> taken = new ArrayList<>();
    private CompletableFuture<Hold> partWait;

    MultiAcquisition(MultiLockHandle lock, Duration wait) {
        this.lock = lock;
        this.wait = wait;
        this.forever = wait.compareTo(Acquisition.FOREVER) >= 0;
        this.deadlineNanos = System.nanoTime() + (forever ? 0 : wait.toNanos());
        // Any completion by the caller (cancel, complete, orTimeout...) ends the wait; ours is a no-op here.
        future.whenComplete((hold, error) -> giveUp());
    }

    void start() {
        waitFor(0);
    }

    /** Starts the wait for part {@code i}, with what is left of the deadline. */
    private void waitFor(int i) {
        CompletableFuture<Hold> f;
        try {
            f = lock.parts.get(i).acquireAsync(forever ? Acquisition.FOREVER : left());
        } catch (RuntimeException e) {
            failed(i, e); // the client is closed
            return;
        }
        boolean over;
        synchronized (this) {
            over = state == State.DONE;
            if (!over) {
                partWait = f;
            }
        }
        if (over) {
            f.cancel(false); // given up meanwhile; a concurrent grant comes to granted(), which releases it
        }
        f.whenComplete((hold, error) -> {
            if (error == null) {
                granted(i, hold);
            } else {
                failed(i, error);
            }
        });
    }

    private Duration left() {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    private void granted(int i, Hold hold) {
        boolean keep;
        List<Hold> all = null;
        synchronized (this) {
            keep = state == State.WAITING && waitingFor == i;
            if (keep) {
                taken.add(hold);
                partWait = null;
                if (taken.size() == lock.parts.size()) {
                    all = takeAll();
                    move(State.CHECKING);
                } else {
                    waitingFor = i + 1;
                    move(State.WAITING);
                }
            }
        }
        if (!keep) {
            MultiLockHandle.releaseQuietly(List.of(hold), null); // the wait was given up as this part came
        } else if (all != null) {
            checked(all);
        } else {
            waitFor(i + 1);
        }
    }

    /**
     * In CHECKING, owning every part: a hold if each is still valid. A part lost while later ones were awaited is
     * never handed over: every part is given back and taken again in order, under the same deadline (or, past it,
     * the acquire times out).
     */
    private void checked(List<Hold> all) {
        Hold lost = all.stream().filter(p -> !p.isValid()).findFirst().orElse(null); // may turn a part lost: outside the lock
        boolean late = !forever && deadlineNanos - System.nanoTime() <= 0;
        boolean givenUp;
        synchronized (this) {
            givenUp = state == State.DONE; // the caller gave up meanwhile
            if (!givenUp && (lost == null || late)) {
                move(State.DONE);
            }
        }
        if (givenUp) {
            giveBack(all, null);
        } else if (lost == null) {
            MultiHold multi = PartsHold.of(all);
            if (future.complete(multi)) {
                settled.complete(null);
            } else {
                lock.client.runInBackground(() -> { // the caller gave up as the last part came: hold nothing
                    HoldfastClient.closeQuietly(multi);
                    settled.complete(null);
                });
            }
        } else if (late) {
            giveBack(all, new LockTimeoutException("multi-lock " + lock.names() + " was not acquired within "
                    + Durations.format(wait) + ": '" + lost.lockName() + "' was lost (" + lost.lossReason()
                    + ") before the later locks were taken; none of its locks is held"));
        } else {
            lock.client.runInBackground(() -> retake(all));
        }
    }

    /** Gives back every part of a check that found one lost, then takes them again from the first. */
    private void retake(List<Hold> all) {
        MultiLockHandle.releaseQuietly(all, null);
        boolean again;
        synchronized (this) {
            again = state == State.CHECKING;
            if (again) {
                waitingFor = 0;
                move(State.WAITING);
            }
        }
        if (again) {
            waitFor(0);
        } else {
            settled.complete(null); // given up meanwhile; everything is given back
        }
    }

    private void failed(int i, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        List<Hold> release;
        synchronized (this) {
            if (state != State.WAITING || waitingFor != i) {
                return; // over already: the part's wait failed because this wait cancelled it
            }
            release = drop();
        }
        RuntimeException outcome;
        if (cause instanceof LockTimeoutException) {
            outcome = timeout(lock.names(), lock.names().get(i), wait);
        } else if (cause instanceof CancellationException) {
            outcome = new IllegalStateException("the wait for '" + lock.names().get(i) + "' was cancelled");
        } else if (cause instanceof RuntimeException re) {
            outcome = re; // a store that stayed unreachable, a closed client, a refused argument
        } else {
            outcome = new HoldfastException("acquiring " + lock + " failed", cause);
        }
        giveBack(release, outcome);
    }

    /** The caller completed the future (or an interrupt cancelled it): end the part's wait, release the rest. */
    private void giveUp() {
        CompletableFuture<Hold> inFlight;
        List<Hold> release;
        boolean checking;
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            checking = state == State.CHECKING; // the check owns the parts, and gives them back when it sees DONE
            inFlight = partWait;
            release = drop();
        }
        if (inFlight != null) {
            inFlight.cancel(false); // a grant racing it is released by the lock's own wait, or by granted()
        }
        if (!checking) {
            giveBack(release, null);
        }
    }

    /**
     * On the client's I/O pool (never on the thread that completed the future), gives back {@code parts}, newest
     * first, settles, and fails the future with {@code error} unless it is null (the caller completed it).
     */
    private void giveBack(List<Hold> parts, RuntimeException error) {
        lock.client.runInBackground(() -> {
            MultiLockHandle.releaseQuietly(parts, error);
            settled.complete(null);
            if (error != null) {
                future.completeExceptionally(error);
            }
        });
    }

    /** Takes out the parts taken, for whoever moves to CHECKING or DONE. Called under this. */
    private List<Hold> takeAll() {
        List<Hold> all = List.copyOf(taken);
        taken.clear();
        partWait = null;
        return all;
    }

    /** Moves to DONE and hands the parts taken to the caller to give back. Called under this. */
    private List<Hold> drop() {
        List<Hold> release = takeAll();
        move(State.DONE);
        return release;
    }

    static LockTimeoutException timeout(List<String> names, String busy, Duration wait) {
        return new LockTimeoutException("multi-lock " + names + " was not acquired within " + Durations.format(wait)
                + (busy == null ? "" : ": '" + busy + "' stayed held") + "; none of its locks is held");
    }

    /** The single place where the state changes; checks the invariants of the state entered. */
    private void move(State next) {
        if (!ALLOWED.get(state).contains(next)) {
            throw Invariants.violated(lock + ": no transition " + state + " -> " + next);
        }
        state = next;
        if (next == State.WAITING && taken.size() != waitingFor
                || next != State.WAITING && (!taken.isEmpty() || partWait != null)) {
            throw Invariants.violated(lock + ": entering " + next + " with " + taken.size() + " parts taken, waiting for part "
                    + waitingFor + (partWait != null ? ", a part's wait in flight" : ""));
        }
    }

    @Override
    public synchronized String toString() {
        return "MultiAcquisition[" + lock.names() + ", " + state + ", part " + waitingFor + "]";
    }
}
