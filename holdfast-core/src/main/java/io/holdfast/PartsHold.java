package io.holdfast;

import java.util.List;

/**
 * {@link MultiHold}: the holds on each part of a multi-lock, in ascending name order, lost together and released
 * together by a {@link HoldGroup}.
 */
final class PartsHold implements MultiHold {
    private final List<Hold> parts;
    private final List<String> names;
    private final HoldGroup group;

    private PartsHold(List<Hold> parts) {
        this.parts = List.copyOf(parts);
        this.names = this.parts.stream().map(Hold::lockName).toList();
        this.group = HoldGroup.of("the multi-hold on " + names, "locks", this.parts);
    }

    /** A multi-hold over {@code parts}, taken in ascending name order, that watches each part for its loss. */
    static PartsHold of(List<Hold> parts) {
        return new PartsHold(parts);
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
    public boolean isValid() {
        return group.isValid();
    }

    @Override
    public Hold.State state() {
        return group.state();
    }

    @Override
    public String lossReason() {
        return group.lossReason();
    }

    @Override
    public void checkValid() {
        group.checkValid();
    }

    @Override
    public void onLost(HoldLostListener listener) {
        group.onLost(listener);
    }

    @Override
    public void close() {
        group.close();
    }

    @Override
    public String toString() {
        return "MultiHold" + names + "[" + state() + "]";
    }
}
