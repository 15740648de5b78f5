package io.holdfast.bench;

import java.time.Duration;
import java.util.List;

/**
 * One library's adapter for one recipe shape (read-write lock, semaphore, multi-lock, leader election) against one
 * running store, as the runner drives it: {@link #open} gives one client (one library instance, its connections and
 * threads) that the threads of the read-write, semaphore and multi-lock shapes share, and that each candidate of the
 * leader shape has to itself.
 *
 * @param shape       the shape it runs in
 * @param name        library, recipe type and version, for the tables
 * @param howItIsUsed how the adapter uses the library, for the report
 * @param limit       the most readers a read-write lock lets in at once ({@link Integer#MAX_VALUE}: no limit); more is
 *                    counted as an overlap
 * @param opener      opens one client
 */
record RecipeLibrary(Shape shape, String name, String howItIsUsed, int limit, Opener opener) {

    RecipeLibrary {
        if (!shape.recipe() || limit < 1) {
            throw new IllegalArgumentException("a recipe library runs in a recipe shape with a limit of at least 1; got " + shape + ", " + limit);
        }
    }

    /** A recipe library without a limit of readers. */
    RecipeLibrary(Shape shape, String name, String howItIsUsed, Opener opener) {
        this(shape, name, howItIsUsed, Integer.MAX_VALUE, opener);
    }

    /** Opens one client. */
    interface Opener {
        Client open() throws Exception;
    }

    /**
     * One client of a recipe. The lock recipes use {@link #acquire} and {@link #release}, each thread releasing what
     * it acquired, on the same thread; the leader shape uses {@link #join}.
     */
    interface Client extends AutoCloseable {

        /**
         * Takes the recipe's hold, waiting up to {@code wait}. Read-write lock: {@code names} is one name, and
         * {@code write} picks the write side; semaphore: one name, one of its {@link RecipeMeasurement#PERMITS}
         * permits; multi-lock: every name, all or nothing.
         *
         * @return what {@link #release} needs, or null if not acquired within {@code wait}
         */
        Object acquire(List<String> names, boolean write, Duration wait) throws Exception;

        /** Gives back what this thread acquired. */
        void release(Object held) throws Exception;

        /**
         * Enters the election for {@code name}: {@code elected} is called (on any thread) when this candidate becomes
         * leader. Closing the returned candidacy leaves the race, resigning if leader; a new call joins again.
         */
        AutoCloseable join(String name, Runnable elected) throws Exception;

        @Override
        void close();
    }

    /** A {@link Client} from functions; the ones a shape does not use may be null. */
    record Parts(Acquire acquire, Release release, Join join, AutoCloseable closer) implements Client {

        interface Acquire {
            Object acquire(List<String> names, boolean write, Duration wait) throws Exception;
        }

        interface Release {
            void release(Object held) throws Exception;
        }

        interface Join {
            AutoCloseable join(String name, Runnable elected) throws Exception;
        }

        /** A client of the lock recipes. */
        static Parts locks(Acquire acquire, Release release, AutoCloseable closer) {
            return new Parts(acquire, release, null, closer);
        }

        /** A client of the leader shape. */
        static Parts leader(Join join, AutoCloseable closer) {
            return new Parts(null, null, join, closer);
        }

        @Override
        public Object acquire(List<String> names, boolean write, Duration wait) throws Exception {
            return acquire.acquire(names, write, wait);
        }

        @Override
        public void release(Object held) throws Exception {
            release.release(held);
        }

        @Override
        public AutoCloseable join(String name, Runnable elected) throws Exception {
            return join.join(name, elected);
        }

        @Override
        public void close() {
            try {
                closer.close();
            } catch (Exception e) {
                // closing a benchmark client: nothing more to do
            }
        }
    }
}
