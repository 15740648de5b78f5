package io.holdfast.testkit.torture;

import io.holdfast.DistributedLock;
import io.holdfast.DistributedReadWriteLock;
import io.holdfast.DistributedSemaphore;
import io.holdfast.Hold;
import io.holdfast.HoldLostListener;
import io.holdfast.Holdfast;
import io.holdfast.PermitHold;

import java.time.Duration;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What a torture client takes each round: the run's lock, one permit of the semaphore of that name
 * ({@link TortureSettings#permits()} above 1), a read or the write of the read-write lock of that name, or the
 * leadership of the election of that name ({@link TortureSettings#recipe()}). Either way a hold with a fencing token
 * (a leader's: its term), a lease renewed while held and loud loss; the client's round does not tell them apart,
 * except for the kind its acquire event records.
 */
interface TortureLock {

    /**
     * Takes it, waiting up to {@code wait}.
     *
     * @throws io.holdfast.LockTimeoutException if the wait ran out
     */
    Held acquire(Duration wait) throws InterruptedException;

    /** What a round does with a hold, a lock's {@link Hold} or a semaphore's {@link PermitHold}. */
    record Held(LongSupplier token, BooleanSupplier valid, Supplier<String> loss, Consumer<HoldLostListener> lostListeners,
                Runnable release, String kind) {
        static Held of(Hold h) {
            return new Held(h::fencingToken, h::isValid, h::lossReason, h::onLost, h::close, "");
        }

        /** @param kind what the history records of it: {@code read}, {@code write}, or empty for a semaphore's permit */
        static Held of(PermitHold h, String kind) {
            return new Held(h::fencingToken, h::isValid, h::lossReason, h::onLost, h::close, kind);
        }

        long fencingToken() {
            return token.getAsLong();
        }

        boolean isValid() {
            return valid.getAsBoolean();
        }

        String lossReason() {
            return loss.get();
        }

        void onLost(HoldLostListener listener) {
            lostListeners.accept(listener);
        }

        /** @throws io.holdfast.LockLostException if the hold was lost */
        void close() {
            release.run();
        }
    }

    /** @param random chooses reads and writes of a read-write lock: the write one round in three */
    static TortureLock of(Holdfast holdfast, String name, Duration lease, int permits, TortureSettings.Recipe recipe, Random random) {
        switch (recipe) {
            case READ_WRITE -> {
                DistributedReadWriteLock rw = holdfast.readWriteLock(name, lease, true);
                return wait -> random.nextInt(3) == 0 ? Held.of(rw.writeLock().acquire(wait), "write") : Held.of(rw.readLock().acquire(wait), "read");
            }
            case LEADER -> {
                return wait -> Leadership.campaign(holdfast, name, lease, wait);
            }
            default -> {
                if (permits == 1) {
                    DistributedLock lock = holdfast.lock(name, lease, true);
                    return wait -> Held.of(lock.acquire(wait));
                }
                DistributedSemaphore semaphore = holdfast.semaphore(name, permits, lease, true);
                return wait -> Held.of(semaphore.acquire(1, wait), "");
            }
        }
    }
}
