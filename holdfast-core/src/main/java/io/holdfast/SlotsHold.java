package io.holdfast;

import java.util.List;

/** {@link PermitHold}: the holds of the permits taken, lost together and released together by a {@link HoldGroup}. */
final class SlotsHold extends GroupHold implements PermitHold {
    private final String name;
    private final long token;

    SlotsHold(String name, long token, List<Hold> permits) {
        super(HoldGroup.of("the hold on '" + name + "' (token " + token + ")", "permits", permits));
        this.name = name;
        this.token = token;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int permits() {
        return group.parts().size();
    }

    @Override
    public long fencingToken() {
        return token;
    }

    @Override
    public void downgrade() {
        group.shrink(1);
    }

    @Override
    public String toString() {
        return "PermitHold[" + name + ", token " + token + ", " + permits() + " permits, " + state() + "]";
    }
}
