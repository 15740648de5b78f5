package io.holdfast.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The shapes every store runs: the mutex's (1 to 5) for Holdfast, the store's incumbents and its floor; the recipes'
 * (6 to 9) for Holdfast and the incumbents that offer the recipe on that store.
 */
enum Shape {
    UNCONTENDED("uncontended", "1. Uncontended: one thread of one client, acquire + release"),
    OWN_NAMES("own-names", "2. Threads of one client, each on its own lock name"),
    ONE_NAME("one-name", "3. Threads of one client on one lock name"),
    CLIENTS("clients", "4. Separate clients on one lock name (each its own library instance, as separate processes)"),
    MANY_HELD("many-held", "5. Many locks held by one client through renewal"),
    READ_WRITE("rw", "6. Read-write lock: threads of one client on one name, 9 reads to 1 write"),
    SEMAPHORE("semaphore", "7. Semaphore of " + RecipeMeasurement.PERMITS + " permits: threads of one client, one permit each"),
    MULTI("multi", "8. Multi-lock: threads of one client, each taking " + RecipeMeasurement.MULTI_NAMES + " of a pool of "
            + RecipeMeasurement.MULTI_POOL + " names at once"),
    LEADER("leader", "9. Leader election: separate clients, the leader steps down as soon as it is elected");

    /** Name on the command line. */
    final String option;
    /** Heading of its table. */
    final String title;

    Shape(String option, String title) {
        this.option = option;
        this.title = title;
    }

    /** Whether it measures one of the recipes beyond the mutex (run by {@link RecipeLibrary} adapters). */
    boolean recipe() {
        return ordinal() >= READ_WRITE.ordinal();
    }

    static List<String> names() {
        return Arrays.stream(values()).map(s -> s.option).toList();
    }

    static Shape parse(String option) {
        for (Shape s : values()) {
            if (s.option.equals(option.trim().toLowerCase(Locale.ROOT))) {
                return s;
            }
        }
        throw new IllegalArgumentException("shapes are " + names() + "; got " + option);
    }
}
