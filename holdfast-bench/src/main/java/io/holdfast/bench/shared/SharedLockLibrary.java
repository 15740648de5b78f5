package io.holdfast.bench.shared;

/**
 * One lock library set up against one running store, as the shared-client runner drives it: {@link #open()} gives
 * one client (one library instance, its connections and threads) that many threads of this process then share, as a
 * service's request threads share one client.
 */
interface SharedLockLibrary {

    /** Library, lock type and version, for the tables. */
    String name();

    /** How the adapter uses the library (and anything the harness adds, such as a polling loop), for the report. */
    String howItIsUsed();

    /** A new client, to be shared by every thread of one measurement and closed after it. */
    Locker open() throws Exception;
}
