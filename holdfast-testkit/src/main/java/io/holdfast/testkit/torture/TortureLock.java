package io.holdfast.testkit.torture;

import io.holdfast.DistributedLock;
import io.holdfast.DistributedSemaphore;
import io.holdfast.Hold;
import io.holdfast.HoldLostListener;
import io.holdfast.Holdfast;
import io.holdfast.PermitHold;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What a torture client takes each round: the run's lock, or one permit of the semaphore of that name
 * ({@link TortureSettings#permits()} above 1). Either way a hold with a fencing token, a lease renewed while held
 * and loud loss; the client's round does not tell them apart.
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
                Runnable release) {
        static Held of(Hold h) {
            return new Held(h::fencingToken, h::isValid, h::lossReason, h::onLost, h::close);
        }

        static Held of(PermitHold h) {
            return new Held(h::fencingToken, h::isValid, h::lossReason, h::onLost, h::close);
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

    static TortureLock of(Holdfast holdfast, String name, Duration lease, int permits) {
        if (permits == 1) {
            DistributedLock lock = holdfast.lock(name, lease, true);
            return wait -> Held.of(lock.acquire(wait));
        }
        DistributedSemaphore semaphore = holdfast.semaphore(name, permits, lease, true);
        return wait -> Held.of(semaphore.acquire(1, wait));
    }
}
