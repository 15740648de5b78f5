package io.holdfast.bench;

import java.time.Duration;
import java.util.List;

/**
 * What one run measures, and for how long.
 *
 * @param shapes          the shapes to run, in order
 * @param ownNameThreads  threads of shape 2 (one client, each thread on its own name)
 * @param threads         thread counts of shape 3 (one client, one name)
 * @param clients         client counts of shape 4 (separate clients, one name)
 * @param locks           locks held in shape 5
 * @param lease           lease of the holds in shape 5, renewed every lease/3
 * @param recipeThreads   threads of one client in the read-write, semaphore and multi-lock shapes
 * @param candidates      candidates (each its own client) of the leader shape
 * @param rounds          how many times every shape runs for every library; the tables show the medians
 * @param warmup          run before each measurement, not counted
 * @param measure         measured time per library and shape, in shapes 1 to 5
 * @param recipeMeasure   measured time per library and shape, in the recipe shapes (6 to 9)
 * @param maxAcquisitions a measurement also ends after this many acquisitions
 * @param acquireWait     bound of every single acquire's wait; a wait that ends without the lock is counted, not fatal
 */
record RunSettings(List<Shape> shapes, int ownNameThreads, List<Integer> threads, List<Integer> clients, int locks, Duration lease,
                   int recipeThreads, int candidates, int rounds, Duration warmup, Duration measure, Duration recipeMeasure,
                   long maxAcquisitions, Duration acquireWait) {

    RunSettings {
        shapes = List.copyOf(shapes);
        threads = List.copyOf(threads);
        clients = List.copyOf(clients);
        if (shapes.isEmpty()) {
            throw new IllegalArgumentException("name at least one shape, from " + Shape.names());
        }
        if (recipeThreads < 1 || candidates < 2) {
            throw new IllegalArgumentException("recipe threads must be at least 1 and candidates at least 2; got " + recipeThreads + ", " + candidates);
        }
        if (ownNameThreads < 1 || threads.stream().anyMatch(n -> n < 1) || clients.stream().anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException("thread and client counts must be at least 1; got " + ownNameThreads + ", " + threads + ", " + clients);
        }
        if (locks < 1 || locks > 100_000 || lease.compareTo(Duration.ofMillis(300)) < 0) {
            throw new IllegalArgumentException("locks must be 1 to 100000 and the lease at least 300ms; got " + locks + ", " + lease);
        }
        if (rounds < 1 || warmup.isNegative() || measure.isNegative() || measure.isZero() || recipeMeasure.isNegative() || recipeMeasure.isZero() || acquireWait.isNegative()
                || acquireWait.isZero() || maxAcquisitions < 1) {
            throw new IllegalArgumentException("rounds >= 1, warm-up >= 0; measured time, wait and max acquisitions > 0");
        }
    }

    /** Every measurement of one round, in order: each shape with each of its thread or client counts. */
    List<Case> cases() {
        return shapes.stream().flatMap(shape -> switch (shape) {
            case UNCONTENDED -> java.util.stream.Stream.of(new Case(shape, 1));
            case OWN_NAMES -> java.util.stream.Stream.of(new Case(shape, ownNameThreads));
            case ONE_NAME -> threads.stream().map(n -> new Case(shape, n));
            case CLIENTS -> clients.stream().map(n -> new Case(shape, n));
            case MANY_HELD -> java.util.stream.Stream.of(new Case(shape, locks));
            case READ_WRITE, SEMAPHORE, MULTI -> java.util.stream.Stream.of(new Case(shape, recipeThreads));
            case LEADER -> java.util.stream.Stream.of(new Case(shape, candidates));
        }).toList();
    }

    /** One measurement: a shape with its count (threads, clients, locks or candidates). */
    record Case(Shape shape, int n) {
    }
}
