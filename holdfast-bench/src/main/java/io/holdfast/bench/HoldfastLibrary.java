package io.holdfast.bench;

import io.holdfast.Hold;
import io.holdfast.Holdfast;

/** Holdfast on any backend, through its public API. */
final class HoldfastLibrary {
    private HoldfastLibrary() {
    }

    /**
     * Holdfast at {@code uri}: one {@code Holdfast} client per {@link LockLibrary#open}, its holds lasting the lease given
     * there, waiting and renewal its own.
     *
     * @param backend the backend's name, for the tables
     */
    static LockLibrary of(String uri, String backend) {
        return new Library("Holdfast " + Versions.of("holdfast") + " (" + backend + ")",
                "one `Holdfast` client; each thread calls `holdfast.lock(name).tryAcquire(wait)` and `Hold.close()`; "
                        + "waiting and renewal are the library's own",
                LockLibrary.Renewal.OWN, lease -> {
                    Holdfast holdfast = Holdfast.builder(uri).defaultLease(lease).connect();
                    return new Library.Parts((name, wait) -> holdfast.lock(name).tryAcquire(wait).orElse(null),
                            held -> ((Hold) held).close(), null, holdfast::close);
                });
    }
}
