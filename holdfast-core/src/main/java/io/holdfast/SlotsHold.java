package io.holdfast;

import java.util.List;

/** {@link PermitHold}: the holds of the permits taken, lost together and released together by a {@link HoldGroup}. */
final class SlotsHold implements PermitHold {
    private final String name;
    private final long token;
    private final HoldGroup group;

    SlotsHold(String name, long token, List<Hold> permits) {
        this.name = name;
        this.token = token;
        this.group = HoldGroup.of("the hold on '" + name + "' (token " + token + ")", "permits", permits);
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
    public void downgrade() {
        group.shrink(1);
    }

    @Override
    public void close() {
        group.close();
    }

    @Override
    public String toString() {
        return "PermitHold[" + name + ", token " + token + ", " + permits() + " permits, " + state() + "]";
    }
}
