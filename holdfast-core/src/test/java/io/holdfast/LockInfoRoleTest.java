package io.holdfast;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The roles owner ids mark, for {@code status} and {@code list}: a leader's hold, a read-write lock's reads and writes,
 * and nothing for plain locks, semaphores and owner ids of other forms; against the in-memory store.
 */
class LockInfoRoleTest extends PermitFixture {

    @Test
    void ownerIdsOfOtherFormsAreLocks() {
        assertThat(LockInfo.Role.of(null)).isEqualTo(LockInfo.Role.LOCK);
        assertThat(LockInfo.Role.of("")).isEqualTo(LockInfo.Role.LOCK);
        assertThat(LockInfo.Role.of("Bp09N5S8-9Quu2de.2")).isEqualTo(LockInfo.Role.LOCK);
        assertThat(LockInfo.Role.of("Bp09N5S8-9Quu2de.")).isEqualTo(LockInfo.Role.LOCK);
        assertThat(LockInfo.Role.of("Bp09N5S8-9Quu2de.X2")).isEqualTo(LockInfo.Role.LOCK);
        assertThat(LockInfo.Role.of("conformance-retry-abc")).isEqualTo(LockInfo.Role.LOCK);
        assertThat(LockInfo.Role.of("Bp09N5S8-9Quu2de.L2")).isEqualTo(LockInfo.Role.LEADER);
        assertThat(LockInfo.Role.of("Bp09N5S8-9Quu2de.R1z")).isEqualTo(LockInfo.Role.READER);
        assertThat(LockInfo.Role.of("Bp09N5S8-9Quu2de.W3")).isEqualTo(LockInfo.Role.WRITER);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void leadersReadsAndWritesAreMarkedAndOtherHoldsAreNot() throws Exception {
        Holdfast a = client();
        Holdfast b = client();
        try (Hold plain = a.lock("plain").acquire(Duration.ofSeconds(5));
             PermitHold permit = a.semaphore("pool", 3).acquire(1, Duration.ofSeconds(5));
             PermitHold read = a.readWriteLock("reads").readLock().acquire(Duration.ofSeconds(5));
             PermitHold write = b.readWriteLock("writes").writeLock().acquire(Duration.ofSeconds(5));
             LeaderElection election = a.leader("cron")) {
            election.start();
            assertThat(eventually(election::isLeader)).as("elected").isTrue();

            assertThat(role(b, "plain")).isEqualTo(LockInfo.Role.LOCK);
            assertThat(heldRoles(b, "pool", 3)).containsExactly(LockInfo.Role.LOCK);
            assertThat(heldRoles(b, "reads", DistributedReadWriteLock.MAX_READERS)).containsExactly(LockInfo.Role.READER);
            assertThat(heldRoles(a, "writes", DistributedReadWriteLock.MAX_READERS)).hasSize(DistributedReadWriteLock.MAX_READERS)
                    .containsOnly(LockInfo.Role.WRITER);
            assertThat(role(b, "cron")).isEqualTo(LockInfo.Role.LEADER);
            assertThat(b.admin().status("cron").orElseThrow().fencingToken()).as("the term").isEqualTo(election.term().orElseThrow());
            assertThat(plain.isValid() && permit.isValid() && read.isValid() && write.isValid()).isTrue();
        }
    }

    /** The roles of the held permits of semaphore {@code name} (the in-memory store lists nothing, so one status each). */
    private static List<LockInfo.Role> heldRoles(Holdfast h, String name, int permits) {
        List<LockInfo.Role> roles = new ArrayList<>();
        for (int i = 0; i < permits; i++) {
            h.admin().status(name + "#permit-" + i).filter(LockInfo::held).ifPresent(info -> roles.add(info.role()));
        }
        return roles;
    }

    private static LockInfo.Role role(Holdfast h, String name) {
        return h.admin().status(name).orElseThrow(() -> new AssertionError("no status of " + name)).role();
    }
}
