package io.holdfast.testkit;

import io.holdfast.DistributedLock;
import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import io.holdfast.LockLostException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract's lease and loss clauses (DESIGN.md 2 and 7), as tests every backend runs against a real store
 * through {@link LockConformanceSuite}: a killed holder's lock frees within its lease, and a hold that is gone
 * from the store (released behind its back, force-released, cut off) is reported lost, never silently kept.
 */
public abstract class LossConformance extends RecipeConformance {
    // ---------------------------------------------------------------------------------------------
    // 2. Lease: a killed holder's lock frees within its lease

    /**
     * Lease: a holder process renews while it lives, and once killed with SIGKILL its lock frees within the
     * lease (plus generous slack), with a greater token for the next holder.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    public void aHolderKilledWithSigkillLosesTheLockWithinItsLease() throws Exception {
        String name = name("sigkill");
        Duration lease = Duration.ofSeconds(2);
        Holdfast survivor = client();
        DistributedLock lock = survivor.lock(name);
        try (ChildJvm child = ChildJvm.start(HolderProcess.class, uri(), name, "2s")) {
            String held = child.awaitLine(line -> line.startsWith(HolderProcess.HELD), Duration.ofSeconds(90));
            long childToken = Long.parseLong(held.substring(HolderProcess.HELD.length()).trim());

            assertThat(lock.tryAcquire()).as("tryAcquire while the child holds the lock").isEmpty();
            LockInfo info = survivor.admin().status(name).orElseThrow(() -> new AssertionError("no status for a held lock"));
            assertThat(info.held()).isTrue();
            assertThat(info.fencingToken()).isEqualTo(childToken);
            assertThat(info.holder()).as("holder of the child's lock").endsWith(":" + child.pid());

            // Past two lease lengths the child is still the holder: it renews while it lives.
            Thread.sleep(lease.multipliedBy(2).toMillis());
            assertThat(child.isAlive()).as("child alive; output:\n%s", child.transcript()).isTrue();
            assertThat(lock.tryAcquire()).as("tryAcquire after two leases while the child lives and renews").isEmpty();

            assertThat(child.transcript()).as("the child's output before the kill").doesNotContain(HolderProcess.LOST);

            child.kill();
            try (Hold hold = lock.acquire(lease.plus(Duration.ofSeconds(20)))) {
                assertThat(hold.fencingToken()).isGreaterThan(childToken);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // 7. Lost holds are loud

    /**
     * Lost holds are loud at release too: a hold the store no longer has when its owner releases it
     * (force-released here, before any renewal could notice; a holder paused past its lease is the same
     * case) makes the release throw {@link LockLostException}, never return as if all was well.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    public void aReleaseOfAHoldTheStoreNoLongerHasReportsTheLoss() throws Exception {
        String name = name("release-after-loss");
        Holdfast holder = client();
        Holdfast operator = client();
        Hold hold = holder.lock(name).acquire(SOON); // default 30 s lease: no renewal within this test
        assertThat(operator.admin().forceRelease(name)).isTrue();
        assertThatThrownBy(hold::close)
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("no longer had this hold");
        assertThat(hold.state()).isEqualTo(Hold.State.LOST);
        assertThat(hold.isValid()).isFalse();
        Hold next = operator.lock(name).acquire(SOON);
        assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
        next.close();
    }

    /**
     * Loud loss: a hold force-released by an operator is reported to its listener, turns invalid, and its
     * close() throws {@link LockLostException}.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    public void aForceReleasedHoldIsReportedLost() throws Exception {
        String name = name("force-release");
        Holdfast holder = client();
        Holdfast operator = client();
        Hold hold = holder.lock(name, Duration.ofSeconds(1), true).acquire(SOON);
        CountDownLatch lost = new CountDownLatch(1);
        AtomicReference<String> reason = new AtomicReference<>();
        hold.onLost((h, why) -> {
            reason.set(why);
            lost.countDown();
        });
        assertThat(hold.isValid()).isTrue();

        assertThat(operator.admin().forceRelease(name)).as("forceRelease of a held lock").isTrue();
        assertThat(lost.await(30, TimeUnit.SECONDS)).as("onLost called within 30s of the force release").isTrue();
        assertThat(reason.get()).isNotBlank();
        assertThat(hold.isValid()).isFalse();
        assertThat(hold.state()).isEqualTo(Hold.State.LOST);
        assertThat(hold.lossReason()).isNotBlank();
        assertThatThrownBy(hold::checkValid).isInstanceOf(LockLostException.class);
        assertThatThrownBy(hold::close).as("close() of a lost hold").isInstanceOf(LockLostException.class);
        try (Hold next = operator.lock(name).acquire(SOON)) {
            assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
        }
    }

    /**
     * Loud loss: a client cut off from the store reports its hold lost before the store frees the lock (the local
     * deadline passes first); after the outage the next holder gets a greater token. The store is watched by an
     * inspector polling throughout the outage: no look that returned while the hold was still valid may have seen
     * the lock free or held by another owner. (A look that returns after the hold turned invalid proves nothing either
     * way, so a slow machine weakens the check but never fails it falsely.)
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    public void aHoldCutOffFromTheStoreIsReportedLostBeforeTheStoreFreesIt() throws Exception {
        String name = name("outage");
        Holdfast inspector = client();
        assertThat(inspector.admin().status(name)).as("status of a lock never taken").isEmpty(); // warms the connection up
        StoreOutage outage = closeLater(outage());
        Holdfast cutOff = client(outage.clientUri());
        Hold hold = cutOff.lock(name, Duration.ofSeconds(2), true).acquire(SOON);
        LockInfo before = inspector.admin().status(name).orElseThrow(() -> new AssertionError("no status for a held lock"));
        assertThat(before.fencingToken()).isEqualTo(hold.fencingToken());

        AtomicReference<Boolean> validAtLoss = new AtomicReference<>();
        CountDownLatch lost = new CountDownLatch(1);
        hold.onLost((h, why) -> {
            validAtLoss.set(h.isValid());
            lost.countDown();
        });

        // Let at least one renewal succeed through the outage's path first.
        Thread.sleep(1_000);
        assertThat(hold.isValid()).as("hold valid before the outage").isTrue();
        List<String> seenFreeBeforeLoss = new CopyOnWriteArrayList<>();
        AtomicInteger looksBeforeLoss = new AtomicInteger();
        outage.begin();
        Thread watcher = new Thread(() -> {
            while (hold.isValid()) {
                try {
                    Optional<LockInfo> info = inspector.admin().status(name);
                    // Still valid after the look returned: the look saw the store while the client trusted its hold.
                    if (hold.isValid()) {
                        looksBeforeLoss.incrementAndGet();
                        if (info.isEmpty() || !info.get().held() || !before.ownerId().equals(info.get().ownerId())) {
                            seenFreeBeforeLoss.add(String.valueOf(info.orElse(null)));
                        }
                    }
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // the inspector's own call failed: no observation
                }
            }
        }, "outage-inspector");
        watcher.setDaemon(true);
        watcher.start();
        try {
            assertThat(lost.await(30, TimeUnit.SECONDS)).as("onLost called within 30s of the outage").isTrue();
            watcher.interrupt();
            watcher.join(TimeUnit.SECONDS.toMillis(30));
            System.out.println(getClass().getSimpleName() + " outage: " + looksBeforeLoss.get()
                    + " looks at the store returned while the hold was valid");
            assertThat(seenFreeBeforeLoss).as("looks at the store, returned while the client's hold was still valid, that "
                    + "saw the lock free or held by another owner").isEmpty();
            assertThat(validAtLoss.get()).as("isValid() inside the listener").isFalse();
            assertThat(hold.isValid()).isFalse();
            assertThat(hold.state()).isEqualTo(Hold.State.LOST);
        } finally {
            watcher.interrupt();
            outage.end();
        }

        try (Hold next = client().lock(name).acquire(SOON)) {
            assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken());
        }
        assertThatThrownBy(hold::close).as("close() of the hold lost in the outage").isInstanceOf(LockLostException.class);
    }
}
