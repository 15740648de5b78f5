package io.holdfast.bench;

import io.holdfast.Hold;
import io.holdfast.Holdfast;

import java.time.Duration;

/** Holdfast on any backend, through its public API: one {@code Holdfast} client per {@link #open}. */
final class HoldfastLibrary implements LockLibrary {
    private final String uri;
    private final String backend;

    /**
     * @param uri     the client's URI
     * @param backend the backend's name, for the tables
     */
    HoldfastLibrary(String uri, String backend) {
        this.uri = uri;
        this.backend = backend;
    }

    @Override
    public String name() {
        return "Holdfast " + Versions.of("holdfast") + " (" + backend + ")";
    }

    @Override
    public String howItIsUsed() {
        return "one `Holdfast` client; each thread calls `holdfast.lock(name).tryAcquire(wait)` and `Hold.close()`; "
                + "waiting and renewal are the library's own";
    }

    @Override
    public Locker open(Duration lease) {
        Holdfast holdfast = Holdfast.builder(uri).defaultLease(lease).connect();
        return new Locker() {
            @Override
            public Object acquire(String lockName, Duration wait) throws InterruptedException {
                return holdfast.lock(lockName).tryAcquire(wait).orElse(null);
            }

            @Override
            public void release(Object held) {
                ((Hold) held).close();
            }

            @Override
            public void close() {
                holdfast.close();
            }
        };
    }
}
