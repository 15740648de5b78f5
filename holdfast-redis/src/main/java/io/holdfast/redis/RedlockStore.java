package io.holdfast.redis;

import io.holdfast.LockInfo;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.Attempt;
import io.holdfast.spi.HoldRef;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.Renewals;
import io.holdfast.spi.SafetyMargin;
import io.holdfast.spi.StoreTraits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Redlock: one lock over N independent Redis masters, each running the same scripts as a single node.
 *
 * <p>Acquire sends the acquire script to every master at once. With grants from a majority it takes the
 * largest of their tokens as the hold's token and, in a second round, raises the counter of every
 * granting master to it (so any later majority, which shares a master with this one, issues a greater
 * token); the hold is valid only if a majority confirmed that too and the lease minus the time elapsed
 * and the clock drift allowance is still positive. Otherwise it gives back whatever it got, everywhere.
 * Release and renewal go to every master; a renewal counts where a majority renewed in time.
 */
final class RedlockStore implements LockStore {
    private static final Logger log = LoggerFactory.getLogger(RedlockStore.class);

    private final RedisTarget target;
    private final List<RedisLockStore> masters;
    private final Quorum quorum;
    private final StoreTraits traits;
    /** Numbers this client's attempts, so that a give-back frees only what its own attempt or an earlier one left. */
    private final java.util.concurrent.atomic.AtomicLong attempts = new java.util.concurrent.atomic.AtomicLong();

    private RedlockStore(RedisTarget target, List<RedisLockStore> masters) {
        this.target = target;
        this.masters = masters;
        this.quorum = new Quorum(masters.size());
        this.traits = new StoreTraits("quorum (Redlock over " + masters.size() + " independent masters, majority " + quorum.majority
                + "): exclusion holds while a majority keeps its data and clocks run at about the same rate; a master "
                + "restarted without its data can break it; fencing tokens are the largest of the majority's counters",
                true, Duration.ofMillis(100), target.maxPoll);
    }

    /**
     * Connects to every master. A majority must answer now; a master that cannot be reached at this moment
     * stays out of this client (it counts as failed in every vote) until the client is opened again.
     */
    static RedlockStore open(RedisTarget target) {
        String clientId = RedisLockStore.newClientId();
        List<RedisLockStore> masters = new ArrayList<>();
        int reachable = 0;
        StoreUnavailableException last = null;
        for (int i = 0; i < target.uris.size(); i++) {
            String address = target.address.split(",")[i];
            RedisConnection c;
            try {
                c = new RedisConnection("redlock", address, false, List.of(target.uris.get(i)), target.timeout);
                reachable++;
            } catch (StoreUnavailableException e) {
                last = e;
                c = null;
            }
            masters.add(c == null ? null : new RedisLockStore(target, c, clientId));
        }
        Quorum quorum = new Quorum(target.uris.size());
        if (!quorum.enoughAnswered(target.uris.size() - reachable)) {
            masters.stream().filter(m -> m != null).forEach(RedisLockStore::close);
            throw new StoreUnavailableException("redlock", target.address, "only " + reachable + " of " + target.uris.size()
                    + " masters could be reached; a majority (" + quorum.majority + ") is needed", last);
        }
        return new RedlockStore(target, masters);
    }

    @Override
    public String backend() {
        return "redlock";
    }

    @Override
    public String address() {
        return target.address;
    }

    @Override
    public StoreTraits traits() {
        return traits;
    }

    /**
     * How much of the lease a grant or renewal may take and still count: the lease minus the clock drift
     * allowance (1% + 2 ms, as Redlock says) or the core's safety margin, whichever is larger, so a grant
     * that counts is never already past the hold's local deadline when it arrives. Slow masters alone cannot
     * use it up: each round waits at most a third of the lease for them ({@link #perMasterMillis}), and an
     * acquire has two rounds, while this leaves at least three quarters; what it catches is a pause of the
     * acquiring process itself (GC, a stopped VM) between the rounds.
     */
    static long validNanos(Duration lease) {
        long drift = lease.toNanos() / 100 + TimeUnit.MILLISECONDS.toNanos(2);
        return lease.toNanos() - Math.max(drift, SafetyMargin.nanos(lease.toNanos()));
    }

    /** How long to wait for one master: a slow master must not eat the lease. */
    private long perMasterMillis(Duration lease) {
        return Math.max(10, Math.min(target.timeout.toMillis(), lease.toMillis() / 3));
    }

    @Override
    public Attempt tryAcquire(String name, String ownerId, String holder, Duration lease) {
        long start = System.nanoTime();
        long limit = perMasterMillis(lease);
        long attempt = attempts.incrementAndGet();
        List<Outcome<Attempt>> first = everywhere(m -> m.acquireAsync(name, ownerId, holder, lease, 0, attempt), limit);
        long token = 0;
        List<RedisLockStore> granted = new ArrayList<>();
        Duration hint = null;
        for (Outcome<Attempt> o : first) {
            if (o.value != null && o.value.acquired()) {
                granted.add(o.master);
                token = Math.max(token, o.value.fencingToken());
            } else if (o.value != null && o.value.holderLeaseRemaining() != null) {
                Duration h = o.value.holderLeaseRemaining();
                hint = hint == null || h.compareTo(hint) < 0 ? h : hint;
            }
        }
        if (granted.size() >= quorum.majority) {
            long floor = token;
            List<Outcome<Attempt>> second = new ArrayList<>();
            for (Outcome<Attempt> o : on(granted, m -> m.acquireAsync(name, ownerId, holder, lease, floor, attempt), limit)) {
                second.add(o);
            }
            long confirmed = second.stream().filter(o -> o.value != null && o.value.acquired() && o.value.fencingToken() == floor).count();
            long elapsed = System.nanoTime() - start;
            if (confirmed >= quorum.majority && elapsed < validNanos(lease)) {
                return Attempt.acquired(floor);
            }
            log.debug("Redlock acquire of '{}' lost its majority or its validity ({} confirmed, {} ms elapsed); giving back", name,
                    confirmed, TimeUnit.NANOSECONDS.toMillis(elapsed));
        }
        giveBack(name, ownerId, attempt, limit, System.nanoTime() + lease.toNanos());
        long failed = first.stream().filter(o -> o.error != null).count();
        if (!quorum.enoughAnswered(failed)) {
            throw unavailable("acquire '" + name + "'", failed, first);
        }
        return Attempt.busy(hint);
    }

    /**
     * Gives back what {@code attempt} got, everywhere. A master that does not answer (it may have granted late,
     * after the attempt stopped waiting) is asked again in the background, every 200 ms, until it answers or the
     * lease it could have granted is over. The owner may meanwhile try again and win on that master: the give-back
     * names its attempt, and a master frees nothing that a later attempt of the owner created or re-granted (the
     * torture run on 5 masters once saw a retried give-back free a master of the waiter's winning majority, and a
     * second client form a majority with it).
     */
    private void giveBack(String name, String ownerId, long attempt, long limit, long untilNanos) {
        for (Outcome<Boolean> o : everywhere(m -> m.giveBackAsync(name, ownerId, attempt), limit)) {
            if (o.error != null && o.master != null) {
                retryGiveBack(o.master, name, ownerId, attempt, untilNanos);
            }
        }
    }

    private void retryGiveBack(RedisLockStore master, String name, String ownerId, long attempt, long untilNanos) {
        if (System.nanoTime() - untilNanos >= 0) {
            log.debug("giving back '{}' on {} got no answer; it ends with its lease", name, master.address());
            return;
        }
        CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS).execute(() -> {
            try {
                master.giveBackAsync(name, ownerId, attempt).whenComplete((r, e) -> {
                    if (e != null) {
                        retryGiveBack(master, name, ownerId, attempt, untilNanos);
                    }
                });
            } catch (RuntimeException e) {
                retryGiveBack(master, name, ownerId, attempt, untilNanos);
            }
        });
    }

    /**
     * Renews on every master. Per owner: renewed where a majority renewed it in time; not held where so
     * many masters answered without it that a majority is impossible; unknown otherwise (a master that did
     * not answer, or a round too slow to count), so the core retries it until its deadline.
     */
    @Override
    public Renewals renewEach(Collection<HoldRef> holds, Duration lease) {
        long start = System.nanoTime();
        List<Outcome<Set<String>>> outcomes = everywhere(m -> m.renewAsync(holds, lease), perMasterMillis(lease));
        long elapsed = System.nanoTime() - start;
        long failed = outcomes.stream().filter(o -> o.error != null).count();
        if (!quorum.enoughAnswered(failed)) {
            throw unavailable("renew " + holds.size() + " lease(s)", failed, outcomes);
        }
        if (elapsed >= validNanos(lease)) {
            return new Renewals(Set.of(), Set.of()); // too slow to count: unknown, retried until the deadlines
        }
        Map<String, Integer> votes = new HashMap<>();
        for (Outcome<Set<String>> o : outcomes) {
            if (o.value != null) {
                o.value.forEach(owner -> votes.merge(owner, 1, Integer::sum));
            }
        }
        Set<String> renewed = new HashSet<>();
        Set<String> gone = new HashSet<>();
        for (HoldRef hold : holds) {
            switch (quorum.of(votes.getOrDefault(hold.ownerId(), 0), failed)) {
                case YES -> renewed.add(hold.ownerId());
                case NO -> gone.add(hold.ownerId());
                case UNKNOWN -> { }
            }
        }
        return new Renewals(renewed, gone);
    }

    /** As {@link #renewEach}; an owner whose renewal is unknown makes it throw instead of calling it gone. */
    @Override
    public Set<String> renew(Collection<HoldRef> holds, Duration lease) {
        return renewEach(holds, lease).renewedIfAllAnswered(holds, backend(), address());
    }

    /**
     * True if a majority freed it; false only if so many masters answered that it was not theirs that a
     * majority is impossible. Otherwise the masters that did not answer decide: unavailable.
     */
    @Override
    public boolean release(String name, String ownerId) {
        List<Outcome<Boolean>> outcomes = everywhere(m -> m.releaseAsync(name, ownerId), target.timeout.toMillis());
        long failed = outcomes.stream().filter(o -> o.error != null).count();
        long released = outcomes.stream().filter(o -> Boolean.TRUE.equals(o.value)).count();
        return switch (quorum.of(released, failed)) {
            case YES -> true;
            case NO -> false;
            case UNKNOWN -> throw unavailable("release '" + name + "'", failed, outcomes);
        };
    }

    @Override
    public boolean forceRelease(String name) {
        List<Outcome<Boolean>> outcomes = everywhere(m -> m.forceReleaseAsync(name), target.timeout.toMillis());
        long failed = outcomes.stream().filter(o -> o.error != null).count();
        if (!quorum.enoughAnswered(failed)) {
            throw unavailable("force-release '" + name + "'", failed, outcomes);
        }
        return outcomes.stream().anyMatch(o -> Boolean.TRUE.equals(o.value));
    }

    /**
     * Watches every master; one release reaches up to one waiting client per master, and this client
     * wakes its waiter once per released token.
     */
    @Override
    public AutoCloseable watchReleases(String name, String ownerId, Runnable onRelease) {
        AtomicReference<String> lastPayload = new AtomicReference<>();
        List<AutoCloseable> all = new ArrayList<>();
        for (RedisLockStore m : masters) {
            if (m == null) {
                continue;
            }
            try {
                all.add(m.watch(name, payload -> {
                    if (!payload.equals(lastPayload.getAndSet(payload)) || payload.equals("resubscribed")) {
                        onRelease.run();
                    }
                }));
            } catch (RuntimeException e) {
                log.debug("watching '{}' on {} failed; polling covers it", name, m.address(), e);
            }
        }
        return () -> {
            for (AutoCloseable c : all) {
                c.close();
            }
        };
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        List<Outcome<Optional<LockInfo>>> outcomes = everywhere(m -> m.inspectAsync(name), target.timeout.toMillis());
        long failed = outcomes.stream().filter(o -> o.error != null).count();
        if (!quorum.enoughAnswered(failed)) {
            throw unavailable("inspect '" + name + "'", failed, outcomes);
        }
        Map<String, List<LockInfo>> byOwner = new HashMap<>();
        long lastToken = 0;
        boolean seen = false;
        for (Outcome<Optional<LockInfo>> o : outcomes) {
            if (o.value != null && o.value.isPresent()) {
                LockInfo info = o.value.get();
                seen = true;
                lastToken = Math.max(lastToken, info.fencingToken());
                if (info.held()) {
                    byOwner.computeIfAbsent(info.ownerId(), k -> new ArrayList<>()).add(info);
                }
            }
        }
        for (List<LockInfo> same : byOwner.values()) {
            if (same.size() >= quorum.majority) {
                LockInfo any = same.get(0);
                long token = same.stream().mapToLong(LockInfo::fencingToken).max().orElse(0);
                Duration left = same.stream().map(LockInfo::leaseRemaining).min(Comparator.naturalOrder()).orElse(null);
                return Optional.of(new LockInfo(name, true, any.holder(), any.ownerId(), token, left));
            }
        }
        return seen ? Optional.of(new LockInfo(name, false, null, null, lastToken, null)) : Optional.empty();
    }

    @Override
    public List<LockInfo> list(String prefix, int limit) {
        TreeSet<String> names = new TreeSet<>();
        for (RedisLockStore m : masters) {
            if (m == null) {
                continue;
            }
            try {
                names.addAll(m.names(prefix));
            } catch (RuntimeException e) {
                log.debug("listing on {} failed; the others' lists count", m.address(), e);
            }
        }
        List<LockInfo> held = new ArrayList<>();
        for (String name : names) {
            inspect(name).filter(LockInfo::held).ifPresent(held::add);
            if (held.size() == limit) {
                break;
            }
        }
        return held;
    }

    @Override
    public void close() {
        for (RedisLockStore m : masters) {
            if (m != null) {
                m.close();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static final class Outcome<T> {
        final RedisLockStore master;
        final String address;
        final T value;
        final Throwable error;

        Outcome(RedisLockStore master, String address, T value, Throwable error) {
            this.master = master;
            this.address = address;
            this.value = value;
            this.error = error;
        }
    }

    private <T> List<Outcome<T>> everywhere(Function<RedisLockStore, CompletableFuture<T>> call, long limitMillis) {
        return on(masters, call, limitMillis);
    }

    /** Sends {@code call} to each master at once and collects what came back within the limit. */
    private <T> List<Outcome<T>> on(List<RedisLockStore> targets, Function<RedisLockStore, CompletableFuture<T>> call, long limitMillis) {
        List<CompletableFuture<T>> futures = new ArrayList<>();
        for (RedisLockStore m : targets) {
            CompletableFuture<T> f;
            if (m == null) {
                f = CompletableFuture.failedFuture(new StoreUnavailableException("redlock", "?", "never connected", null));
            } else {
                try {
                    f = call.apply(m);
                } catch (RuntimeException e) {
                    f = CompletableFuture.failedFuture(e);
                }
            }
            futures.add(f);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limitMillis);
        List<Outcome<T>> outcomes = new ArrayList<>();
        for (int i = 0; i < futures.size(); i++) {
            RedisLockStore m = targets.get(i);
            String address = m == null ? "a master unreachable when this client connected" : m.address();
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                outcomes.add(new Outcome<>(m, address, futures.get(i).get(left, TimeUnit.NANOSECONDS), null));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcomes.add(new Outcome<>(m, address, null, e));
            } catch (ExecutionException e) {
                outcomes.add(new Outcome<>(m, address, null, Errors.unwrap(e)));
            } catch (TimeoutException e) {
                outcomes.add(new Outcome<>(m, address, null, e));
            }
        }
        return outcomes;
    }

    private StoreUnavailableException unavailable(String what, long failed, List<? extends Outcome<?>> outcomes) {
        StringBuilder why = new StringBuilder();
        Throwable cause = null;
        for (Outcome<?> o : outcomes) {
            if (o.error != null) {
                cause = cause == null ? o.error : cause;
                why.append(why.length() == 0 ? "" : "; ").append(o.address).append(": ").append(Errors.rootMessage(o.error));
            }
        }
        return new StoreUnavailableException("redlock", target.address, "cannot " + what + ": " + failed + " of " + masters.size()
                + " masters failed and a majority (" + quorum.majority + ") is needed (" + why + ")", cause);
    }
}
