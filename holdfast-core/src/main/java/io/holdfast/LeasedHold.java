package io.holdfast;

import java.util.concurrent.atomic.AtomicBoolean;

/** A {@link Hold}: one user's share of a {@link Lease}, closed once. */
final class LeasedHold implements Hold {
    private final Lease lease;

    Lease lease() {
        return lease;
    }
    private final AtomicBoolean closed = new AtomicBoolean();

    LeasedHold(Lease lease) {
        this.lease = lease;
    }

    @Override
    public String lockName() {
        return lease.name;
    }

    @Override
    public long fencingToken() {
        return lease.token;
    }

    @Override
    public boolean isValid() {
        return !closed.get() && lease.isValid();
    }

    @Override
    public State state() {
        return switch (lease.state()) {
            case HELD -> closed.get() ? State.RELEASED : State.HELD;
            case RELEASING, RELEASED -> State.RELEASED;
            case LOST -> State.LOST;
        };
    }

    @Override
    public String lossReason() {
        return lease.lossReason();
    }

    @Override
    public void checkValid() {
        if (closed.get()) {
            throw new LockLostException("the hold on '" + lease.name + "' was released");
        }
        if (!lease.isValid()) {
            throw new LockLostException("the hold on '" + lease.name + "' (token " + lease.token + ") is lost: " + lease.lossReason());
        }
    }

    @Override
    public Hold reenter() {
        if (closed.get()) {
            throw new IllegalStateException("the hold on '" + lease.name + "' was released; acquire the lock again");
        }
        checkValid();
        return lease.reenter();
    }

    @Override
    public void onLost(HoldLostListener listener) {
        lease.onLost(this, java.util.Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            lease.closeOne();
        }
    }

    @Override
    public String toString() {
        return "Hold[" + lease.name + ", token " + lease.token + ", " + state() + "]";
    }
}
