package io.holdfast;

import org.junit.jupiter.api.AfterEach;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the semaphore, read-write lock and multi-lock all-or-nothing tests share: clients on views of one in-memory store (closed after each
 * test), the check that no invariant of the core broke, and a bounded wait for a condition.
 */
abstract class PermitFixture {
    final InMemoryStore store = new InMemoryStore(false, true);
    private final List<Holdfast> clients = new ArrayList<>();
    private final long violationsBefore = Invariants.violations();

    ScriptedStore view() {
        return new ScriptedStore(store);
    }

    Holdfast client(ScriptedStore view) {
        Holdfast c = view.client(Duration.ofSeconds(30));
        clients.add(c);
        return c;
    }

    /** A client on {@code view} that tells {@code listener} of its locks' events. */
    Holdfast client(ScriptedStore view, LockListener listener) {
        Holdfast c = Holdfast.builder(view).defaultLease(Duration.ofSeconds(30)).holderName("scripted").listener(listener).connect();
        clients.add(c);
        return c;
    }

    Holdfast client() {
        return client(view());
    }

    @AfterEach
    void closeClients() {
        clients.forEach(Holdfast::close);
        assertThat(Invariants.violations()).as("broken invariants logged by the core").isEqualTo(violationsBefore);
    }

    /** Names of {@code prefix}'s locks held in the store now. */
    List<String> heldLocks(String prefix) {
        List<String> held = new ArrayList<>();
        for (String line : store.leftovers()) {
            if (line.startsWith(prefix) && line.contains(" held by ")) {
                held.add(line.substring(0, line.indexOf(' ')));
            }
        }
        return held;
    }

    static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - deadline < 0) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return condition.getAsBoolean();
    }
}
