package io.holdfast.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** The shapes every store runs, each for Holdfast, the store's incumbents and its floor. */
enum Shape {
    UNCONTENDED("uncontended", "1. Uncontended: one thread of one client, acquire + release"),
    OWN_NAMES("own-names", "2. Threads of one client, each on its own lock name"),
    ONE_NAME("one-name", "3. Threads of one client on one lock name"),
    CLIENTS("clients", "4. Separate clients on one lock name (each its own library instance, as separate processes)"),
    MANY_HELD("many-held", "5. Many locks held by one client through renewal");

    /** Name on the command line. */
    final String option;
    /** Heading of its table. */
    final String title;

    Shape(String option, String title) {
        this.option = option;
        this.title = title;
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
