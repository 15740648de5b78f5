package io.holdfast;

import io.holdfast.PermitStates.State;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * One acquire of k permits of a {@link DistributedSemaphore}: the gate first, then, while holding it, the permits,
 * all under one deadline; then the gate is released and its token is the hold's. The states, their transitions and
 * invariants are in {@link PermitStates}; this class makes the moves.
 *
 * <p>Every hold that reaches this object has one owner: its callback keeps it in a state that wants it, and otherwise
 * releases it; whoever moves to CHECKING or DONE takes what was held and gives it to the hold or back to the store.
 * Transitions happen in {@link #move} under this object's lock; store calls, waits, releases and the future's
 * completion run outside it, and give-backs never on the thread that completed the future (see {@link Handover}).
 */
final class PermitAcquisition {
    final CompletableFuture<PermitHold> future = new CompletableFuture<>();
    /** Completes once this acquire holds nothing: what it took is in the caller's hold or given back. */
    final CompletableFuture<Void> settled = new CompletableFuture<>();
    private final SemaphoreHandle semaphore;
    private final int wanted;
    /** For messages: "2 permits of semaphore 'x'", "the write lock of 'x'". */
    private final String what;
    /** Null: no waiting at all (tryAcquire()). */
    private final Duration wait;
    private final boolean forever;
    private final long deadlineNanos;

    // Guarded by this.
    private State state = State.GATE;
    private CompletableFuture<Hold> gateWait;
    private Hold gate;
    /** Permit index to its hold, in the order taken. */
    private final Map<Integer, Hold> taken = new LinkedHashMap<>();
    private final PermitRounds rounds;
    private int attemptsInFlight;
    private RuntimeException attemptError;
    private RuntimeException transientError;
    /** Permit index to its wait (null until it is started). */
    private final Map<Integer, CompletableFuture<Hold>> waits = new HashMap<>();

    PermitAcquisition(SemaphoreHandle semaphore, int wanted, String what, Duration wait) {
        this.semaphore = semaphore;
        this.wanted = wanted;
        this.what = what;
        this.wait = wait;
        this.forever = wait != null && wait.compareTo(Acquisition.FOREVER) >= 0;
        this.deadlineNanos = System.nanoTime() + (wait == null || forever ? 0 : wait.toNanos());
        this.rounds = new PermitRounds(semaphore.slots.size());
        // Any completion by the caller (cancel, complete, orTimeout...) ends the wait; ours is a no-op here.
        future.whenComplete((hold, error) -> giveUp());
    }

    /** Waits for the gate (with the whole wait), then for the permits. */
    void start() {
        CompletableFuture<Hold> f;
        try {
            f = semaphore.gate.acquireAsync(wait);
        } catch (RuntimeException e) {
            gateFailed(e); // the client is closed
            return;
        }
        boolean over;
        synchronized (this) {
            over = state == State.DONE;
            if (!over) {
                gateWait = f;
            }
        }
        if (over) {
            f.cancel(false); // given up meanwhile; a grant racing it comes to gateGranted(), which releases it
        }
        f.whenComplete((hold, error) -> {
            if (error == null) {
                gateGranted(hold);
            } else {
                gateFailed(error);
            }
        });
    }

    /** Goes on from a gate taken already (a tryAcquire's). */
    void startWith(Hold gateHold) {
        gateGranted(gateHold);
    }

    private void gateGranted(Hold hold) {
        List<Integer> round = null;
        synchronized (this) {
            if (state == State.GATE) {
                gate = hold;
                gateWait = null;
                round = roundOf(wanted);
                move(State.TRYING);
            }
        }
        if (round == null) {
            HoldfastClient.closeQuietly(hold); // given up meanwhile
            return;
        }
        hold.onLost((lost, reason) -> gateLost(reason));
        attempt(round);
    }

    /** Picks the next {@code most} permits not tried yet and counts them in flight. Called under this. */
    private List<Integer> roundOf(int most) {
        List<Integer> round = rounds.next(most);
        attemptsInFlight = round.size();
        return round;
    }

    /** One attempt on each permit of {@code round}, concurrently, on the client's I/O pool. */
    private void attempt(List<Integer> round) {
        for (int i : round) {
            try {
                CompletableFuture.supplyAsync(semaphore.slots.get(i)::tryAcquire, semaphore.client.io)
                        .whenComplete((hold, error) -> attempted(i, hold, error));
            } catch (RejectedExecutionException e) {
                attempted(i, null, HoldfastClient.closedWhileWaiting());
            }
        }
    }

    private void attempted(int i, Optional<Hold> result, Throwable error) {
        Hold hold = result == null ? null : result.orElse(null);
        RuntimeException cause = error == null ? null : Handover.unwrap(error);
        Hold extra = null;
        Runnable next = null;
        synchronized (this) {
            if (state != State.TRYING) {
                extra = hold; // over: given up meanwhile
            } else {
                attemptsInFlight--;
                if (hold != null && taken.size() < wanted) {
                    taken.put(i, hold);
                } else {
                    extra = hold; // a wider round found more than wanted
                }
                if (cause instanceof StoreUnavailableException && wait != null) {
                    transientError = cause; // a wait retries it
                } else if (cause != null && attemptError == null) {
                    attemptError = cause;
                }
                if (attemptsInFlight == 0) {
                    next = afterRound();
                }
            }
        }
        HoldfastClient.closeQuietly(extra);
        if (next != null) {
            next.run();
        }
    }

    /** A round of attempts is over: what next. Called under this, in TRYING. */
    private Runnable afterRound() {
        if (attemptError != null) {
            return fail(attemptError);
        }
        if (taken.size() == wanted) {
            return check();
        }
        boolean late = wait == null || !forever && System.nanoTime() - deadlineNanos >= 0;
        if (late && !rounds.allTried()) { // a free permit is taken however short the wait: try every one not tried yet
            List<Integer> round = roundOf(semaphore.slots.size());
            move(State.TRYING);
            return () -> attempt(round);
        }
        if (late) {
            return fail(wait == null ? new LockTimeoutException(what + " not free") // a tryAcquire's empty answer
                    : transientError != null ? transientError : timeout(taken.size() + " of " + wanted + " permits were free in time"));
        }
        List<Integer> toWait = rounds.allBut(taken.keySet());
        toWait.forEach(i -> waits.put(i, null));
        move(State.WAITING);
        return () -> waitFor(toWait);
    }

    /** A wait, with what is left of the deadline, on each permit of {@code toWait}. */
    private void waitFor(List<Integer> toWait) {
        Duration left = forever ? Acquisition.FOREVER : Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
        for (int i : toWait) {
            CompletableFuture<Hold> f;
            try {
                f = semaphore.slots.get(i).acquireAsync(left);
            } catch (RuntimeException e) {
                slotFailed(i, null, e); // the client is closed
                continue;
            }
            boolean over;
            synchronized (this) {
                over = state != State.WAITING || !waits.containsKey(i) || waits.get(i) != null;
                if (!over) {
                    waits.put(i, f);
                }
            }
            if (over) {
                f.cancel(false); // a grant racing it comes to slotGranted(), which releases it
            }
            f.whenComplete((hold, error) -> {
                if (error == null) {
                    slotGranted(i, f, hold);
                } else {
                    slotFailed(i, f, error);
                }
            });
        }
    }

    /** Whether {@code f} is the wait of this WAITING on permit {@code i} (an earlier one may answer late). Called under this. */
    private boolean isCurrentWait(int i, CompletableFuture<Hold> f) {
        return state == State.WAITING && waits.containsKey(i) && waits.get(i) == f;
    }

    private void slotGranted(int i, CompletableFuture<Hold> f, Hold hold) {
        boolean keep;
        Runnable next = null;
        synchronized (this) {
            keep = isCurrentWait(i, f);
            if (keep) {
                waits.remove(i);
                taken.put(i, hold);
                if (taken.size() == wanted) {
                    next = check();
                } else {
                    move(State.WAITING);
                }
            }
        }
        if (!keep) {
            HoldfastClient.closeQuietly(hold); // over, or more came at once than were wanted
        } else if (next != null) {
            next.run();
        }
    }

    private void slotFailed(int i, CompletableFuture<Hold> f, Throwable error) {
        RuntimeException cause = Handover.unwrap(error);
        Runnable next;
        synchronized (this) {
            if (!isCurrentWait(i, f)) {
                return; // over already: this wait was cancelled by it
            }
            waits.remove(i);
            next = fail(cause instanceof LockTimeoutException
                    ? timeout(taken.size() + " of " + wanted + " permits were free in time") : cause);
        }
        next.run();
    }

    private void gateFailed(Throwable error) {
        RuntimeException cause = Handover.unwrap(error);
        synchronized (this) {
            if (state != State.GATE) {
                return; // over already: the gate's wait was cancelled by it
            }
            gateWait = null;
            move(State.DONE);
        }
        settled.complete(null); // nothing was taken
        future.completeExceptionally(cause instanceof LockTimeoutException
                ? timeout("'" + semaphore.gate.name() + "' stayed held by acquires ahead of it") : cause);
    }

    private void gateLost(String reason) {
        Runnable next;
        synchronized (this) {
            if (state != State.TRYING && state != State.WAITING) {
                return; // over (released or given back), or being checked, which looks at the gate itself
            }
            next = fail(gateLostError(reason));
        }
        next.run();
    }

    private HoldfastException gateLostError(String reason) { // the error of a wait whose gate was lost
        return new HoldfastException("acquiring " + what + " failed: the gate '" + semaphore.gate.name()
                + "' was lost while taking permits (" + reason + "); none is held");
    }

    /** The caller completed the future (or an interrupt cancelled it): end the waits and give back what is held. */
    private void giveUp() {
        Handover over;
        boolean checking;
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            checking = state == State.CHECKING; // the check owns what is held, and gives it back when it sees DONE
            over = takeAll();
            move(State.DONE);
        }
        if (!checking) {
            over.giveBack(semaphore.client, future, settled, null);
        }
    }

    /** Takes out everything held and in flight, for whoever moves to CHECKING or DONE. Called under this. */
    private Handover takeAll() {
        List<CompletableFuture<Hold>> inFlight = new ArrayList<>(waits.values()); // null: a wait not started yet
        inFlight.add(gateWait);
        inFlight.removeIf(Objects::isNull);
        Handover over = new Handover(gate, new ArrayList<>(taken.values()), inFlight);
        gate = null;
        gateWait = null;
        taken.clear();
        waits.clear();
        attemptsInFlight = 0; // their holds come to attempted(), which releases them
        return over;
    }

    /** k permits taken: a check of the gate and every permit, outside this lock. Called under this. */
    private Runnable check() {
        Handover held = takeAll();
        move(State.CHECKING);
        return () -> {
            held.cancelWaits(); // for permits no longer wanted
            checked(held);
        };
    }

    /**
     * In CHECKING, owning {@code held}: a hold if the gate and every permit are still valid. A permit lost while the
     * others were awaited (its lease ran out unrenewed, or it was force-released) is never handed over: every permit
     * is given back and taken again, under the same gate and deadline.
     */
    private void checked(Handover held) {
        Hold lost = held.firstLost(); // outside this lock: it may turn a hold past its deadline lost
        boolean retake = lost != null && lost != held.gate() && wait != null;
        boolean givenUp;
        synchronized (this) {
            givenUp = state == State.DONE; // the caller gave up meanwhile
            if (!givenUp && !retake) {
                move(State.DONE);
            }
        }
        if (givenUp) {
            held.giveBack(semaphore.client, future, settled, null);
        } else if (lost == null) {
            held.handTo(semaphore.client, semaphore.name, future, settled);
        } else if (!retake) {
            held.giveBack(semaphore.client, future, settled, lost == held.gate() ? gateLostError(lost.lossReason())
                    : new LockTimeoutException(what + " not free: '" + lost.lockName() + "' was lost before the others were taken"));
        } else {
            semaphore.client.runInBackground(() -> retake(held));
        }
    }

    /** Gives back the permits of {@code held} and takes permits again, from a first round, keeping the gate. */
    private void retake(Handover held) {
        held.givePermitsBack();
        List<Integer> round = null;
        synchronized (this) {
            if (state == State.CHECKING) {
                gate = held.gate();
                rounds.restart();
                round = roundOf(wanted);
                move(State.TRYING);
            }
        }
        if (round == null) {
            held.giveBack(semaphore.client, future, settled, null); // given up meanwhile: the gate is still this check's
        } else {
            attempt(round);
        }
    }

    /** Ends with {@code error} once everything is given back. Called under this. */
    private Runnable fail(RuntimeException error) {
        Handover over = takeAll();
        move(State.DONE);
        return () -> over.giveBack(semaphore.client, future, settled, error);
    }

    private LockTimeoutException timeout(String detail) {
        return new LockTimeoutException("acquiring " + what + " timed out after " + Durations.format(wait) + ": " + detail
                + "; none is held");
    }

    /** The single place where the state changes; checks the invariants of the state entered. Called under this. */
    private void move(State next) {
        state = PermitStates.move(this, state, next, gate != null, gateWait != null, taken.keySet(), wanted,
                waits.keySet(), attemptsInFlight);
    }

    @Override
    public synchronized String toString() {
        return "PermitAcquisition[" + what + ", " + state + "]";
    }
}
