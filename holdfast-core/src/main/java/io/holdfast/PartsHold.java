package io.holdfast;

import java.util.List;

/**
 * {@link MultiHold}: the holds on each part of a multi-lock, in ascending name order, lost together and released
 * together by a {@link HoldGroup}.
 */
final class PartsHold extends GroupHold implements MultiHold {
    private final List<Hold> parts;
    private final List<String> names;

    private PartsHold(List<Hold> parts, List<String> names) {
        super(HoldGroup.of("the multi-hold on " + names, "locks", parts));
        this.parts = parts;
        this.names = names;
    }

    /** A multi-hold over {@code parts}, taken in ascending name order, that watches each part for its loss. */
    static PartsHold of(List<Hold> parts) {
        List<Hold> copy = List.copyOf(parts);
        return new PartsHold(copy, copy.stream().map(Hold::lockName).toList());
    }

    @Override
    public List<String> lockNames() {
        return names;
    }

    @Override
    public long fencingToken(String name) {
        for (Hold part : parts) {
            if (part.lockName().equals(name)) {
                return part.fencingToken();
            }
        }
        throw new IllegalArgumentException("'" + name + "' is not a lock of this multi-hold; its locks are " + names);
    }

    @Override
    public String toString() {
        return "MultiHold" + names + "[" + state() + "]";
    }
}
