package io.holdfast.testkit.torture;

import io.holdfast.HoldLostListener;
import io.holdfast.Holdfast;
import io.holdfast.LeaderElection;
import io.holdfast.LockLostException;
import io.holdfast.LockTimeoutException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A torture round's leadership ({@link TortureSettings.Recipe#LEADER}): a candidacy in the election of the run's name,
 * held from its election to its resignation at the round's end, with the term as its token. A revocation before that
 * is the hold's loss; the candidacy is then closed, so that it does not campaign again behind the round's back (a
 * leadership the history does not record could hide an overlap from the checker, never invent one).
 */
final class Leadership {
    private final LeaderElection election;
    private final List<HoldLostListener> lostListeners = new CopyOnWriteArrayList<>();
    private volatile String lossReason;
    private volatile boolean resigning;

    private Leadership(LeaderElection election) {
        this.election = election;
    }

    /**
     * Campaigns, waiting up to {@code wait} to be elected.
     *
     * @throws LockTimeoutException if the wait ran out (the candidacy is closed)
     */
    static TortureLock.Held campaign(Holdfast holdfast, String name, Duration lease, Duration wait) throws InterruptedException {
        Leadership l = new Leadership(holdfast.leader(name, lease));
        CompletableFuture<Long> elected = new CompletableFuture<>();
        l.election.onElected(elected::complete);
        l.election.onRevoked(l::revoked);
        l.election.start();
        long term;
        try {
            term = elected.get(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            l.election.close();
            throw new LockTimeoutException(name, wait);
        } catch (ExecutionException e) {
            l.election.close();
            throw new IllegalStateException("the election of '" + name + "' failed", e.getCause());
        } catch (InterruptedException e) {
            l.election.close();
            throw e;
        }
        return new TortureLock.Held(() -> term, l.election::isLeader, () -> l.lossReason, l.lostListeners::add, l::resign, "leader");
    }

    private void revoked(long term, String reason) {
        if (resigning) {
            return; // told after the round resigned: its release reported the loss already, or it resigned in time
        }
        lossReason = reason;
        election.close(); // out of the race: the next round campaigns afresh
        lostListeners.forEach(listener -> listener.holdLost(null, reason));
    }

    /**
     * Resigns; throws {@link LockLostException} if the leadership had ended before: revoked, or past its deadline with
     * the revocation not yet told (it is told on the client's event thread, after the deadline; a holder frozen past
     * its lease resigns first), as a lock's {@code close()} does.
     */
    private void resign() {
        boolean led = election.isLeader();
        resigning = true;
        election.close();
        if (lossReason != null || !led) {
            throw new LockLostException("the leadership had ended before the round resigned: "
                    + (lossReason != null ? lossReason : "its deadline had passed"));
        }
    }
}
