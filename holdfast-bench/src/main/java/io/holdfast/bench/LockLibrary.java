package io.holdfast.bench;

import java.time.Duration;

/**
 * One lock library (or a store's floor, a minimal lock) set up against one running store, as the runner drives it:
 * {@link #open} gives one client (one library instance, its connections and threads) that one or many threads share.
 */
interface LockLibrary {

    /** Who renews the holds of this library's clients, for the many-locks-held shape. */
    enum Renewal {
        /** The library renews by itself. */
        OWN,
        /** The library can renew but has no schedule of its own: the harness calls {@link Locker#renew} every lease/3. */
        BY_HARNESS,
        /** No renewal: the shape is not run for this library. */
        NONE
    }

    /** Library, lock type and version, for the tables. */
    String name();

    /** How the adapter uses the library (and anything the harness adds, such as a polling loop), for the report. */
    String howItIsUsed();

    /** Who renews; {@link Renewal#OWN} unless said otherwise. */
    default Renewal renewal() {
        return Renewal.OWN;
    }

    /**
     * A new client, to be used by the threads of one measurement and closed after it.
     *
     * @param lease how long a hold lasts unless renewed (every shape but the many-locks one uses 30 s, which no
     *              measurement outlives)
     */
    Locker open(Duration lease) throws Exception;
}
