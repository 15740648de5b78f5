package io.holdfast.bench;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One measurement of the lock recipes (shapes 6 to 8): {@code threads} platform threads share one client and loop
 * acquire (waiting at most the settings' wait) → check the recipe's exclusion → release, timed by a {@link Window}.
 * <ul>
 * <li>Read-write lock: one name; each operation is a read with probability {@value #READ_SHARE}, else a write. A
 *     writer must find nobody else inside, a reader no writer and at most the library's limit of readers.</li>
 * <li>Semaphore: one name with {@value #PERMITS} permits, one taken per operation; at most {@value #PERMITS} inside.</li>
 * <li>Multi-lock: each operation takes {@value #MULTI_NAMES} names drawn at random from a pool of {@value #MULTI_POOL},
 *     all or nothing; each name at most one holder.</li>
 * </ul>
 * Each violation found counts one overlap (must be 0); warm-up included.
 */
final class RecipeMeasurement {
    /** Permits of the semaphore shape. */
    static final int PERMITS = 3;
    /** Names each multi-lock takes. */
    static final int MULTI_NAMES = 2;
    /** Names the multi-locks draw from. */
    static final int MULTI_POOL = 4;
    /** Share of reads in the read-write shape. */
    static final double READ_SHARE = 0.9;

    private final RecipeLibrary library;
    private final RecipeLibrary.Client client;
    private final String name;
    private final RunSettings settings;
    private final ServerMeter meter;
    private final Window window;
    private final AtomicInteger[] inside = new AtomicInteger[MULTI_POOL]; // semaphore and readers: [0]; multi: one per name
    private final AtomicInteger writers = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();
    private final AtomicLong overlaps = new AtomicLong();
    private final Histogram[] readWaits;
    private final Histogram[] writeWaits;

    RecipeMeasurement(RecipeLibrary library, RecipeLibrary.Client client, String name, int threads, RunSettings settings, ServerMeter meter) {
        this.library = library;
        this.client = client;
        this.name = name;
        this.settings = settings;
        this.meter = meter;
        this.window = new Window(threads, settings.recipeMeasure(), settings, meter);
        this.readWaits = Window.histograms(threads);
        this.writeWaits = Window.histograms(threads);
        for (int i = 0; i < MULTI_POOL; i++) {
            inside[i] = new AtomicInteger();
        }
    }

    /**
     * Runs the warm-up and the measurement; the shape's columns.
     *
     * @throws IllegalStateException if a thread failed or did not stop
     */
    Map<Column, Double> run() throws Exception {
        Window.Timed t = window.run(this::work);
        Histogram reads = Window.merged(readWaits);
        Map<Column, Double> v = new LinkedHashMap<>();
        v.put(Column.median("ops/s", 0), t.counted() / t.seconds());
        String wait = library.shape() == Shape.READ_WRITE ? "read wait" : "wait";
        v.put(Column.median(wait + " p50 ms", 2), reads.getValueAtPercentile(50) / 1e3);
        v.put(Column.median(wait + " p99 ms", 2), reads.getValueAtPercentile(99) / 1e3);
        if (library.shape() == Shape.READ_WRITE) {
            Histogram writes = Window.merged(writeWaits);
            v.put(Column.median("write wait p50 ms", 2), writes.getValueAtPercentile(50) / 1e3);
            v.put(Column.median("write wait p99 ms", 2), writes.getValueAtPercentile(99) / 1e3);
        }
        if (library.shape() != Shape.MULTI) {
            v.put(Column.median(library.shape() == Shape.READ_WRITE ? "most readers at once" : "most inside at once", 0), (double) mostInside.get());
        }
        v.put(Column.sum("timed-out waits"), (double) t.timeouts());
        v.put(Column.sum(Runner.OVERLAPS), (double) overlaps.get());
        v.putAll(Column.server(meter.names(), t.server(), t.counted(), "op"));
        return v;
    }

    private void work(int index) throws Exception {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!window.stopped()) {
            boolean write = library.shape() == Shape.READ_WRITE && random.nextDouble() >= READ_SHARE;
            List<Integer> slots = slots(random);
            List<String> names = library.shape() == Shape.MULTI ? slots.stream().map(i -> name + "-" + i).toList() : List.of(name);
            Window.Attempt a = window.attempt(() -> client.acquire(names, write, settings.acquireWait()));
            Object held = a.held();
            if (held == null) {
                continue;
            }
            boolean counted = window.measuring();
            try {
                enter(slots, write);
                if (counted) {
                    Window.record((write ? writeWaits : readWaits)[index], a.granted() - a.asked());
                    window.count();
                }
                leave(slots, write);
            } finally {
                client.release(held);
            }
        }
    }

    /** The pool slots an operation uses: the multi-lock's names, else the one name's slot. */
    private List<Integer> slots(ThreadLocalRandom random) {
        if (library.shape() != Shape.MULTI) {
            return List.of(0);
        }
        List<Integer> pool = new ArrayList<>(java.util.stream.IntStream.range(0, MULTI_POOL).boxed().toList());
        java.util.Collections.shuffle(pool, random);
        return pool.subList(0, MULTI_NAMES);
    }

    /** Counts this holder in and every violation it finds: each counter is checked after its own increment. */
    private void enter(List<Integer> slots, boolean write) {
        boolean violated = false;
        switch (library.shape()) {
            case READ_WRITE -> {
                if (write) {
                    violated = writers.incrementAndGet() != 1 | inside[0].get() != 0;
                } else {
                    int readers = inside[0].incrementAndGet();
                    mostInside.accumulateAndGet(readers, Math::max);
                    violated = writers.get() != 0 | readers > library.limit();
                }
            }
            case SEMAPHORE -> {
                int n = inside[0].incrementAndGet();
                mostInside.accumulateAndGet(n, Math::max);
                violated = n > PERMITS;
            }
            case MULTI -> {
                for (int slot : slots) {
                    violated |= inside[slot].incrementAndGet() != 1;
                }
            }
            default -> throw new IllegalArgumentException("not a lock recipe: " + library.shape());
        }
        if (violated) {
            overlaps.incrementAndGet();
        }
    }

    private void leave(List<Integer> slots, boolean write) {
        if (write) {
            writers.decrementAndGet();
        } else {
            slots.forEach(slot -> inside[slot].decrementAndGet());
        }
    }
}
