package io.holdfast.testkit;

import io.holdfast.DistributedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import io.holdfast.StoreUnavailableException;
import io.holdfast.spi.LockStore;
import io.holdfast.spi.LockStoreProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.fail;

/**
 * The contract's error and operator clauses (DESIGN.md 9 and the admin API), as tests every backend runs against
 * a real store through {@link LockConformanceSuite}: bad input is refused with what is allowed, an unreachable
 * store raises a typed exception naming backend and address, and status and list show holders.
 */
public abstract class ErrorAndAdminConformance extends LossConformance {
    // ---------------------------------------------------------------------------------------------
    // 9. Errors are clear

    /**
     * Errors: bad names, leases, waits and URIs are refused with {@link IllegalArgumentException}s that say
     * what is allowed.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    public void badNamesDurationsAndUrisAreRejectedWithWhatIsAllowed() throws Exception {
        Holdfast holdfast = client();
        List<String> badNames = new ArrayList<>(List.of("", "a b", "a//b", "/a", "x".repeat(201)));
        badNames.add(null);
        for (String bad : badNames) {
            assertThatThrownBy(() -> holdfast.lock(bad)).as("lock(%s)", bad == null ? "null" : "'" + bad + "'")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed");
            assertThatThrownBy(() -> holdfast.lock(bad, Duration.ofSeconds(5), true)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("allowed");
        }
        assertThat(holdfast.lock("x".repeat(200)).name()).as("a 200-character name").hasSize(200);

        String name = name("bad-input");
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(50), Duration.ofDays(8), Duration.ofSeconds(-1))) {
            assertThatThrownBy(() -> holdfast.lock(name, bad, true)).as("lease %s", bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed");
        }
        DistributedLock lock = holdfast.lock(name);
        Duration negative = Duration.ofMillis(-1);
        assertThatThrownBy(() -> lock.tryAcquire(negative)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed");
        assertThatThrownBy(() -> lock.acquire(negative)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed");
        assertThatThrownBy(() -> lock.acquireAsync(negative)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowed");
        assertThat(holdfast.admin().status(name)).as("status after rejected calls: nothing was acquired").isEmpty();

        List<String> schemes = new ArrayList<>();
        ServiceLoader.load(LockStoreProvider.class).forEach(p -> schemes.addAll(p.schemes()));
        assertThat(schemes).as("schemes of the backends on the class path").isNotEmpty();
        Throwable unknown = catchThrowable(() -> Holdfast.connect("nosuch://x").close());
        assertThat(unknown).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nosuch://x");
        for (String scheme : schemes) {
            assertThat(unknown.getMessage()).as("message for an unknown scheme lists accepted schemes").contains(scheme);
        }
    }

    /**
     * Errors: an unreachable store raises {@link StoreUnavailableException} naming backend and address, never
     * a silent false.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void anUnreachableStoreRaisesATypedExceptionNamingBackendAndAddress() throws Exception {
        String expectedBackend;
        try (LockStore reachable = openStore(uri())) {
            expectedBackend = reachable.backend();
        }
        String name = name("unreachable");
        Holdfast holdfast;
        try {
            holdfast = Holdfast.connect(unreachableUri());
        } catch (StoreUnavailableException e) {
            assertNamesBackendAndAddress(e, expectedBackend);
            return;
        }
        closeLater(holdfast);
        // A backend that connects lazily must fail the first call instead.
        DistributedLock lock = holdfast.lock(name);
        Throwable noWait = catchThrowable(lock::tryAcquire);
        assertThat(noWait).as("tryAcquire() on an unreachable store").isInstanceOf(StoreUnavailableException.class);
        assertNamesBackendAndAddress((StoreUnavailableException) noWait, expectedBackend);
        Throwable timed = catchThrowable(() -> lock.tryAcquire(Duration.ofSeconds(1)));
        assertThat(timed).as("tryAcquire(1s) on an unreachable store (never a silent empty)").isInstanceOf(StoreUnavailableException.class);
    }

    // ---------------------------------------------------------------------------------------------
    // Operators

    /**
     * Operators: status shows holder, owner id, token and lease left; list shows held locks under a prefix only.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    public void adminShowsHoldersAndListsByPrefix() throws Exception {
        String prefix = name("admin") + "/";
        String holderName = "conformance-holder-" + randomSuffix();
        Holdfast holdfast = closeLater(Holdfast.builder(uri()).holderName(holderName).connect());
        Holdfast outsider = client();
        Duration lease = Duration.ofSeconds(30);

        Hold a = holdfast.lock(prefix + "a", lease, true).acquire(SOON);
        Hold b = holdfast.lock(prefix + "b", lease, true).acquire(SOON);
        holdfast.lock(prefix + "released").acquire(SOON).close();
        Hold elsewhere = holdfast.lock(name("admin-other")).acquire(SOON);
        assertThat(elsewhere.isValid()).isTrue();

        LockInfo info = outsider.admin().status(prefix + "a").orElseThrow(() -> new AssertionError("no status for a held lock"));
        assertThat(info.name()).isEqualTo(prefix + "a");
        assertThat(info.held()).isTrue();
        assertThat(info.holder()).isEqualTo(holderName);
        assertThat(info.ownerId()).isNotBlank();
        assertThat(info.fencingToken()).isEqualTo(a.fencingToken());
        assertThat(info.leaseRemaining()).isNotNull().isPositive().isLessThanOrEqualTo(lease);

        LockInfo released = outsider.admin().status(prefix + "released").orElse(null);
        if (released != null) { // a store may prune free locks
            assertThat(released.held()).as("status of a released lock").isFalse();
            assertThat(released.ownerId()).isNull();
            assertThat(released.leaseRemaining()).isNull();
        }
        assertThat(outsider.admin().status(prefix + "never")).as("status of a name never used").isEmpty();

        List<LockInfo> listed = outsider.admin().list(prefix, 100);
        assertThat(listed).extracting(LockInfo::name).containsExactly(prefix + "a", prefix + "b");
        assertThat(listed).allSatisfy(l -> {
            assertThat(l.held()).isTrue();
            assertThat(l.holder()).isEqualTo(holderName);
        });
        assertThat(listed.get(1).fencingToken()).isEqualTo(b.fencingToken());
        assertThat(outsider.admin().list(prefix, 1)).extracting(LockInfo::name).containsExactly(prefix + "a");

        b.close();
        assertThat(outsider.admin().list(prefix, 100)).extracting(LockInfo::name).containsExactly(prefix + "a");
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers

    private void assertNamesBackendAndAddress(StoreUnavailableException e, String expectedBackend) {
        assertThat(e.backend()).as("backend named by the exception").isEqualTo(expectedBackend);
        assertThat(e.address()).as("address named by the exception").isNotBlank();
        assertThat(e.getMessage()).contains(expectedBackend).contains(e.address());
        String hint = unreachableAddressHint();
        if (hint != null) {
            assertThat(e.getMessage()).as("message of the exception for %s", unreachableUri()).contains(hint);
        }
    }
}
