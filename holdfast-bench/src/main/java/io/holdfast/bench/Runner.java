package io.holdfast.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Runs every shape for every library of one store: round after round, and in each round shape after shape, every
 * library in turn (never two at once) opens its client(s), is measured, and closes them. Shape 5 runs only on the
 * stores that have it and for the libraries that renew; the recipe shapes (6 to 9) for the store's recipe adapters.
 */
final class Runner {
    /** Lease of every hold in shapes 1 to 4: no measurement outlives it, so none needs renewal. */
    static final Duration LEASE = Duration.ofSeconds(30);

    /** One library's result for one case in one round: values by column, or the error that stopped it. */
    record Row(RunSettings.Case c, int round, String library, Map<Column, Double> values, String error) {
        Row {
            values = values == null ? Map.of() : new LinkedHashMap<>(values);
        }

        /** Failed, or a lock was ever held by two at once. */
        boolean failed() {
            return error != null || values.entrySet().stream().anyMatch(e -> e.getKey().header().equals(OVERLAPS) && e.getValue() > 0);
        }
    }

    static final String OVERLAPS = "overlaps";

    private final RunSettings settings;

    Runner(RunSettings settings) {
        this.settings = Objects.requireNonNull(settings);
    }

    RunSettings settings() {
        return settings;
    }

    /** Runs every round of every case for every library of {@code store}, reporting progress as it goes. */
    List<Row> run(RunningStore store, Consumer<String> progress) {
        List<Row> rows = new ArrayList<>();
        for (int round = 1; round <= settings.rounds(); round++) {
            for (RunSettings.Case c : settings.cases()) {
                if (c.shape().recipe()) {
                    for (RecipeLibrary recipe : rotated(store.recipes(c.shape()), round)) {
                        add(rows, measured(c, round, recipe.name(), () -> measureRecipe(store, recipe, c)), store, progress);
                    }
                    continue;
                }
                for (LockLibrary library : rotated(store.libraries(), round)) {
                    if (c.shape() == Shape.MANY_HELD && (!store.manyHeld() || library.renewal() == LockLibrary.Renewal.NONE)) {
                        continue;
                    }
                    add(rows, measured(c, round, library.name(), () -> c.shape() == Shape.MANY_HELD
                            ? new ManyHeld(library, settings, store.meter()).run()
                            : values(c, measureLoop(store, library, c), store.meter().names())), store, progress);
                }
            }
        }
        return rows;
    }

    /**
     * The libraries in the order of round {@code round}: each round starts one later, so that no library is always the
     * first on a freshly started server (whose first second runs slower) and the median of the rounds evens it out.
     */
    static <T> List<T> rotated(List<T> libraries, int round) {
        List<T> order = new ArrayList<>(libraries);
        if (!order.isEmpty()) {
            Collections.rotate(order, -((round - 1) % order.size()));
        }
        return order;
    }

    private static void add(List<Row> rows, Row row, RunningStore store, Consumer<String> progress) {
        rows.add(row);
        progress.accept(String.format(Locale.ROOT, "%s, round %d, %s %d, %s: %s", store.title(), row.round(), row.c().shape().option, row.c().n(),
                row.library(), row.error() != null ? "failed: " + row.error() : row.values().entrySet().stream().limit(3)
                        .map(e -> e.getKey().header() + " " + String.format(Locale.ROOT, "%.1f", e.getValue()))
                        .collect(Collectors.joining(", "))));
    }

    /** One measurement's columns. */
    private interface Values {
        Map<Column, Double> get() throws Exception;
    }

    private static Row measured(RunSettings.Case c, int round, String library, Values values) {
        try {
            return new Row(c, round, library, values.get(), null);
        } catch (Exception e) {
            return new Row(c, round, library, null, String.valueOf(e.getMessage() == null ? e : e.getMessage()).replace('\n', ' '));
        }
    }

    /** Shapes 6 to 9: one client shared by the threads, or one per candidate. */
    private Map<Column, Double> measureRecipe(RunningStore store, RecipeLibrary recipe, RunSettings.Case c) throws Exception {
        String name = c.shape().option + "-" + c.n() + "-" + UUID.randomUUID().toString().substring(0, 8);
        List<RecipeLibrary.Client> opened = new ArrayList<>();
        try {
            for (int i = 0; i < (c.shape() == Shape.LEADER ? c.n() : 1); i++) {
                opened.add(recipe.opener().open());
            }
            return c.shape() == Shape.LEADER ? new LeaderMeasurement(opened, name, settings, store.meter()).run()
                    : new RecipeMeasurement(recipe, opened.get(0), name, c.n(), settings, store.meter()).run();
        } finally {
            opened.forEach(RecipeLibrary.Client::close);
        }
    }

    private Measurement.Measured measureLoop(RunningStore store, LockLibrary library, RunSettings.Case c) throws Exception {
        String name = c.shape().option + "-" + c.n() + "-" + UUID.randomUUID().toString().substring(0, 8);
        int lockers = c.shape() == Shape.CLIENTS ? c.n() : 1;
        List<Locker> opened = new ArrayList<>();
        try {
            for (int i = 0; i < lockers; i++) {
                opened.add(library.open(LEASE));
            }
            return new Measurement(opened, c.shape() == Shape.OWN_NAMES ? i -> name + "-" + i : i -> name, c.n(), settings, store.meter()).run();
        } finally {
            opened.forEach(Locker::close);
        }
    }

    /** The columns of shapes 1 to 4. */
    private static Map<Column, Double> values(RunSettings.Case c, Measurement.Measured m, List<String> meterNames) {
        Map<Column, Double> v = new LinkedHashMap<>();
        double perSecond = m.seconds();
        switch (c.shape()) {
            case UNCONTENDED, OWN_NAMES -> {
                v.put(Column.median("ops/s", 0), m.acquisitions() / perSecond);
                v.put(Column.median("p50 µs", 0), (double) m.cycles().getValueAtPercentile(50));
                v.put(Column.median("p99 µs", 0), (double) m.cycles().getValueAtPercentile(99));
            }
            case ONE_NAME -> {
                v.put(Column.median("acquisitions/s", 0), m.acquisitions() / perSecond);
                v.put(Column.median("hand-offs/s", 0), m.handoffs() / perSecond);
                v.put(Column.median("wait p50 ms", 2), m.waits().getValueAtPercentile(50) / 1e3);
                v.put(Column.median("wait p99 ms", 2), m.waits().getValueAtPercentile(99) / 1e3);
                v.put(Column.median("fewest per thread", 0), (double) m.fewest());
                v.put(Column.median("most per thread", 0), (double) m.most());
            }
            case CLIENTS -> {
                v.put(Column.median("hand-offs/s", 0), m.handoffs() / perSecond);
                v.put(Column.median("acquisitions/s", 0), m.acquisitions() / perSecond);
                v.put(Column.median("hand-off p50 ms", 2), m.handoffTimes().getValueAtPercentile(50) / 1e3);
                v.put(Column.median("hand-off p99 ms", 2), m.handoffTimes().getValueAtPercentile(99) / 1e3);
                v.put(Column.median("wait p99 ms", 2), m.waits().getValueAtPercentile(99) / 1e3);
                v.put(Column.median("fewest per client", 0), (double) m.fewest());
                v.put(Column.median("most per client", 0), (double) m.most());
            }
            default -> throw new IllegalArgumentException(c.shape() + " has its own columns");
        }
        if (c.shape() != Shape.UNCONTENDED) {
            v.put(Column.sum("timed-out waits"), (double) m.timeouts());
            v.put(Column.sum(OVERLAPS), (double) m.overlaps());
        }
        v.putAll(Column.server(meterNames, m.server(), m.acquisitions(), c.shape() == Shape.UNCONTENDED || c.shape() == Shape.OWN_NAMES ? "op" : "acquisition"));
        return v;
    }
}
