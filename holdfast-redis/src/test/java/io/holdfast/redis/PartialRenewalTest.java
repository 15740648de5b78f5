package io.holdfast.redis;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LockLostException;
import io.holdfast.StoreUnavailableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A part of the store that does not answer decides nothing: review findings 4, 5 and 6
 * (../shared/reviews/core-jdbc-redis.md). A Redlock master or a Cluster master that is paused is unknown,
 * not "no": holds that a majority (Redlock) or a healthy master (Cluster) still has are neither reported
 * lost nor released as if lost.
 */
class PartialRenewalTest {

    /**
     * Finding 4: the hold has exactly a majority (3 of 5: two masters are held by another client); one of
     * the three is paused across a renewal. The hold stays valid, and is renewed again once it answers.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aPausedMasterOfABareMajorityDoesNotLoseTheHold() throws Exception {
        try (RedlockServers servers = new RedlockServers(5);
             Holdfast redlock = Holdfast.connect(servers.uri("prefix=redlock:&timeout=1s"));
             Holdfast onFourth = Holdfast.connect("redis://" + servers.masters.get(3).address() + "?prefix=redlock:");
             Holdfast onFifth = Holdfast.connect("redis://" + servers.masters.get(4).address() + "?prefix=redlock:")) {
            String name = "redlock/bare-majority";
            Hold other4 = onFourth.lock(name, Duration.ofSeconds(60), true).acquire(Duration.ofSeconds(10));
            Hold other5 = onFifth.lock(name, Duration.ofSeconds(60), true).acquire(Duration.ofSeconds(10));
            Hold hold = redlock.lock(name, Duration.ofSeconds(6), true).acquire(Duration.ofSeconds(10));
            List<String> losses = new ArrayList<>();
            hold.onLost((h, why) -> losses.add(why));
            Thread.sleep(500);
            servers.masters.get(0).pause(); // across the renewal due 2 s after the acquire
            Thread.sleep(3_000);
            boolean validWhilePaused = hold.isValid();
            servers.masters.get(0).resume();
            Thread.sleep(3_000); // two more renewal rounds, with all three answering
            assertThat(validWhilePaused).as("hold valid while one of its three masters was paused (losses: %s)", losses).isTrue();
            assertThat(hold.isValid()).as("hold valid after the master answered again (losses: %s)", losses).isTrue();
            assertThat(redlock.admin().status(name)).hasValueSatisfying(info -> assertThat(info.ownerId()).isNotNull());
            hold.close();
            other4.close();
            other5.close();
        }
    }

    /**
     * Finding 5: closing a hold while three of five masters are paused cannot tell whether it was freed: it
     * reports the store unavailable (the lock frees with its lease), never a lost hold.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aReleaseWithoutAMajorityAnsweringIsUnavailableNotLost() throws Exception {
        try (RedlockServers servers = new RedlockServers(5);
             Holdfast redlock = Holdfast.connect(servers.uri("prefix=redlock:&timeout=1s"))) {
            Hold hold = redlock.lock("redlock/release", Duration.ofSeconds(30), true).acquire(Duration.ofSeconds(10));
            for (int i : new int[] {0, 2, 4}) {
                servers.masters.get(i).pause();
            }
            try {
                assertThatThrownBy(hold::close).isInstanceOf(StoreUnavailableException.class)
                        .isNotInstanceOf(LockLostException.class).hasMessageContaining("frees when its lease");
            } finally {
                for (int i : new int[] {0, 2, 4}) {
                    servers.masters.get(i).resume();
                }
            }
        }
    }

    /**
     * Finding 6: on a Cluster whose masters keep serving while one is down, pausing one master past the
     * lease loses only the holds on that master; holds on the others are renewed and stay valid.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aPausedClusterMasterLosesOnlyItsOwnHolds() throws Exception {
        try (RedisClusterServers cluster = new RedisClusterServers(3, false);
             Holdfast client = Holdfast.connect("redis-cluster://" + cluster.seeds() + "?prefix=pr:&timeout=1s")) {
            Map<String, Hold> holds = new HashMap<>();
            Map<String, Integer> masterOf = new HashMap<>();
            for (int i = 0; i < 12; i++) {
                String name = "cluster/partial-" + i;
                holds.put(name, client.lock(name, Duration.ofSeconds(3), true).acquire(Duration.ofSeconds(10)));
                for (int m = 0; m < cluster.masters.size(); m++) {
                    if (Long.valueOf(1).equals(cluster.masters.get(m).call("EXISTS", "pr:{" + name + "}"))) {
                        masterOf.put(name, m);
                    }
                }
            }
            int paused = masterOf.get("cluster/partial-0");
            assertThat(masterOf.values()).as("the holds' masters").contains((paused + 1) % 3);
            Map<String, String> lost = new ConcurrentHashMap<>();
            holds.forEach((name, hold) -> hold.onLost((h, why) -> lost.put(name, why)));
            cluster.masters.get(paused).pause();
            try {
                Thread.sleep(5_000); // past the 3 s lease: the paused master's holds must be lost
            } finally {
                cluster.masters.get(paused).resume();
            }
            for (Map.Entry<String, Hold> e : holds.entrySet()) {
                boolean onPaused = masterOf.get(e.getKey()) == paused;
                assertThat(e.getValue().isValid()).as("%s on master %d (paused: %d); losses: %s", e.getKey(),
                        masterOf.get(e.getKey()), paused, lost).isEqualTo(!onPaused);
            }
            for (Hold hold : holds.values()) {
                try {
                    hold.close();
                } catch (LockLostException e) {
                    // the paused master's holds, reported lost as they should be
                }
            }
        }
    }
}
