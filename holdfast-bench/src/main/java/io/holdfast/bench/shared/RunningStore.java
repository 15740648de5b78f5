package io.holdfast.bench.shared;

import java.util.List;

/**
 * A store the shared-client rows run on, with the libraries to compare on it.
 *
 * @param title     the store's name, for the table's heading
 * @param server    what server it is (version, address, who started it), for the table's header
 * @param libraries Holdfast first, then the incumbents, in the order they run
 * @param stop      stops what {@link Stores} started for the run (nothing for the machine's PostgreSQL)
 */
record RunningStore(String title, String server, List<SharedLockLibrary> libraries, AutoCloseable stop) implements AutoCloseable {

    RunningStore {
        libraries = List.copyOf(libraries);
    }

    @Override
    public void close() throws Exception {
        stop.close();
    }
}
