package io.holdfast.spring;

import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.lang.Nullable;

import java.util.List;

/**
 * Actuator endpoint {@code holdfast}: the locks held under this application's holder name
 * ({@code holdfast.holder-name}, else {@code host:pid}), from the store's list of held locks (the client keeps no
 * list of its own holds), and one lock's state by name.
 *
 * <ul>
 *   <li>{@code GET /actuator/holdfast}: this holder's locks; {@code ?all=true} every holder's; {@code ?prefix=orders/}
 *       only names starting so. At most {@value #LIMIT} locks are read from the store ({@code truncated} says if more
 *       were there).</li>
 *   <li>{@code GET /actuator/holdfast/orders/42}: the lock {@code orders/42}, held or not; 404 if the store has no
 *       record of it.</li>
 * </ul>
 */
@Endpoint(id = "holdfast")
public class HoldfastEndpoint {
    static final int LIMIT = 1000;

    private final Holdfast holdfast;
    private final String holder;

    HoldfastEndpoint(Holdfast holdfast, String holder) {
        this.holdfast = holdfast;
        this.holder = holder;
    }

    /** The held locks of this holder (or of all, with {@code all}), whose names start with {@code prefix}. */
    @ReadOperation
    public Locks locks(@Nullable Boolean all, @Nullable String prefix) {
        List<LockInfo> held = holdfast.admin().list(prefix == null ? "" : prefix, LIMIT + 1);
        boolean truncated = held.size() > LIMIT;
        List<LockView> shown = held.stream().limit(LIMIT)
                .filter(info -> Boolean.TRUE.equals(all) || holder.equals(info.holder()))
                .map(LockView::of).toList();
        return new Locks(holdfast.describe(), holder, shown, truncated);
    }

    /** One lock, by its name (which may contain '/'); null (404) if the store has no record of it. */
    @ReadOperation
    @Nullable
    public LockView lock(@Selector(match = Selector.Match.ALL_REMAINING) String[] name) {
        return holdfast.admin().status(String.join("/", name)).map(LockView::of).orElse(null);
    }

    /**
     * The endpoint's answer.
     *
     * @param store the store the client talks to
     * @param holder this application's holder name
     * @param locks the held locks shown, in name order
     * @param truncated whether the store held more than could be read
     */
    public record Locks(String store, String holder, List<LockView> locks, boolean truncated) {
    }

    /**
     * One lock.
     *
     * @param name its name
     * @param held whether it is held
     * @param holder who holds it, or null
     * @param fencingToken the token of the hold (or the last issued, when free; 0 if the store keeps none)
     * @param leaseRemainingMillis the lease left by the store's clock, or null when free
     */
    public record LockView(String name, boolean held, String holder, long fencingToken, Long leaseRemainingMillis) {
        static LockView of(LockInfo info) {
            return new LockView(info.name(), info.held(), info.holder(), info.fencingToken(),
                    info.leaseRemaining() == null ? null : info.leaseRemaining().toMillis());
        }
    }
}
