package io.holdfast.spring;

/** Finds a cause in a startup failure's chain. */
final class Causes {
    private Causes() {
    }

    /** The first throwable of type {@code type} in {@code failure}'s cause chain (itself included), or null. */
    static <T extends Throwable> T find(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
