package io.holdfast.bench;

import java.time.Duration;

/**
 * A {@link LockLibrary} from its parts, as every adapter of the bench is made.
 *
 * @param name        library, lock type and version
 * @param howItIsUsed how the adapter uses it, for the report
 * @param renewal     who renews its holds
 * @param opener      opens one client whose holds last the given lease
 */
record Library(String name, String howItIsUsed, Renewal renewal, Opener opener) implements LockLibrary {

    /** Opens one client. */
    interface Opener {
        Locker open(Duration lease) throws Exception;
    }

    @Override
    public Locker open(Duration lease) throws Exception {
        return opener.open(lease);
    }

    /** A {@link Locker} from functions; {@code renew} may be null (the library renews by itself or not at all). */
    record Parts(Acquire acquire, Release release, Renew renew, AutoCloseable closer) implements Locker {

        interface Acquire {
            Object acquire(String lockName, Duration wait) throws Exception;
        }

        interface Release {
            void release(Object held) throws Exception;
        }

        interface Renew {
            Object renew(Object held) throws Exception;
        }

        @Override
        public Object acquire(String lockName, Duration wait) throws Exception {
            return acquire.acquire(lockName, wait);
        }

        @Override
        public void release(Object held) throws Exception {
            release.release(held);
        }

        @Override
        public Object renew(Object held) throws Exception {
            return renew == null ? Locker.super.renew(held) : renew.renew(held);
        }

        @Override
        public void close() {
            try {
                closer.close();
            } catch (Exception e) {
                // closing a benchmark client: nothing more to do
            }
        }
    }
}
