package io.holdfast.bench;

import java.util.List;

/**
 * A store the runner measures, with the libraries to compare on it.
 *
 * @param title     the store's name, for the table's heading
 * @param server    what server it is (version, address, who started it), for the table's header
 * @param libraries Holdfast first, then the incumbents, then the floor, in the order they run (shapes 1 to 5)
 * @param recipes   the recipe adapters (shapes 6 to 9): Holdfast's first, then the incumbents', in the order they run
 * @param meter     the server's cost counters ({@link ServerMeter#NONE} where none are read)
 * @param manyHeld  whether shape 5 (many locks held through renewal) runs on this store
 * @param stop      stops what {@link Stores} started for the run (nothing for the machine's PostgreSQL)
 */
record RunningStore(String title, String server, List<LockLibrary> libraries, List<RecipeLibrary> recipes, ServerMeter meter, boolean manyHeld,
                    AutoCloseable stop) implements AutoCloseable {

    RunningStore {
        libraries = List.copyOf(libraries);
        recipes = List.copyOf(recipes);
    }

    /** The recipe adapters of one shape, in the order they run. */
    List<RecipeLibrary> recipes(Shape shape) {
        return recipes.stream().filter(r -> r.shape() == shape).toList();
    }

    @Override
    public void close() throws Exception {
        stop.close();
    }
}
