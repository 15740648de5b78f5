package io.holdfast;

/**
 * What {@link PermitHold} and {@link MultiHold} share: validity, loss and release of a hold made of several holds,
 * all answered by one {@link HoldGroup}.
 */
abstract class GroupHold {
    final HoldGroup group;

    GroupHold(HoldGroup group) {
        this.group = group;
    }

    public boolean isValid() {
        return group.isValid();
    }

    public Hold.State state() {
        return group.state();
    }

    public String lossReason() {
        return group.lossReason();
    }

    public void checkValid() {
        group.checkValid();
    }

    public void onLost(HoldLostListener listener) {
        group.onLost(listener);
    }

    public void close() {
        group.close();
    }
}
