package io.holdfast.spi;

import io.holdfast.StoreUnavailableException;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * The outcome of one batched renewal, per owner id: {@code renewed} (the lease was extended, counted from
 * the renewal's send time), {@code notHeld} (the store says, unambiguously, that the owner no longer holds
 * the lock). An owner in neither set is unknown: a part of the store did not answer in time, so the core
 * retries it until the hold's local deadline instead of declaring it lost.
 *
 * @param renewed owner ids whose leases were extended
 * @param notHeld owner ids the store no longer has
 */
public record Renewals(Set<String> renewed, Set<String> notHeld) {

    /**
     * The renewed owners, for {@link LockStore#renew}, which cannot say "unknown": throws if any of
     * {@code holds} got no answer, so that no unanswered hold is reported gone.
     *
     * @throws StoreUnavailableException naming {@code backend} and {@code address} if an answer is missing
     */
    public Set<String> renewedIfAllAnswered(Collection<HoldRef> holds, String backend, String address) {
        int unanswered = holds.size() - renewed.size() - notHeld.size();
        if (unanswered > 0) {
            throw new StoreUnavailableException(backend, address, "no answer in time for the renewal of " + unanswered
                    + " of " + holds.size() + " lease(s)", null);
        }
        return renewed;
    }

    /** Every owner in {@code holds} is either in {@code renewed} or no longer held. */
    public static Renewals allAnswered(Collection<HoldRef> holds, Set<String> renewed) {
        Set<String> gone = new HashSet<>();
        for (HoldRef hold : holds) {
            if (!renewed.contains(hold.ownerId())) {
                gone.add(hold.ownerId());
            }
        }
        return new Renewals(renewed, gone);
    }
}
