package io.holdfast.cli;

import io.holdfast.DistributedReadWriteLock;
import io.holdfast.LockInfo;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How a semaphore's locks are recognised, grouped and summed up, on lists of {@link LockInfo} as a store returns them. */
class PermitViewsTest {

    private static LockInfo held(String name, String holder, long token) {
        return new LockInfo(name, true, holder, "o" + token, token, Duration.ofSeconds(9));
    }

    @Test
    void recognisesPermitsAndGatesButNotLookalikes() {
        assertThat(PermitViews.member(held("pool#permit-0", "a", 1))).get()
                .satisfies(m -> assertThat(List.of(m.semaphore(), m.permit())).containsExactly("pool", 0));
        assertThat(PermitViews.member(held("a#permit-1#permit-63", "a", 1))).get()
                .satisfies(m -> assertThat(List.of(m.semaphore(), m.permit())).containsExactly("a#permit-1", 63));
        assertThat(PermitViews.member(held("pool#gate", "a", 1))).get().satisfies(m -> assertThat(m.isGate()).isTrue());
        assertThat(PermitViews.member(held("pool#permit-64", "a", 1))).as("beyond the most permits").isEmpty();
        assertThat(PermitViews.member(held("pool#permit-01", "a", 1))).as("not a number a semaphore writes").isEmpty();
        assertThat(PermitViews.member(held("pool#permit-", "a", 1))).isEmpty();
        assertThat(PermitViews.member(held("#gate", "a", 1))).isEmpty();
        assertThat(PermitViews.member(held("pool", "a", 1))).isEmpty();
    }

    @Test
    void listGroupsPermitsUnderTheirNameInPermitOrderWithTheHeldGateLast() {
        List<LockInfo> inNameOrder = List.of(held("jobs/a", "h1", 5), held("pool#gate", "w", 9), held("pool#permit-10", "r2", 3),
                held("pool#permit-2", "r1", 4), held("zeta", "h1", 6));

        List<String> lines = PermitViews.listTable(inNameOrder).render().lines().toList();

        assertThat(lines).hasSize(7);
        assertThat(lines.get(1)).startsWith("jobs/a ");
        assertThat(lines.get(2)).matches("pool +2 permits +2 holders +- +- +-");
        assertThat(lines.get(3)).matches(" +#permit-2 +yes +r1 +o4 +4 +9\\.0s");
        assertThat(lines.get(4)).matches(" +#permit-10 +yes +r2 +o3 +3 +9\\.0s");
        assertThat(lines.get(5)).matches(" +#gate +acquiring +w +o9 +9 +9\\.0s");
        assertThat(lines.get(6)).startsWith("zeta ");
    }

    private static LockInfo marked(String name, String holder, String mark, long token) {
        return new LockInfo(name, true, holder, "Bp09N5S8-9Quu2de." + mark + token, token, Duration.ofSeconds(9));
    }

    @Test
    void aReadWriteLocksGroupCountsItsReadersOrNamesItsWriterAndALeaderRowSaysLeader() {
        List<LockInfo> locks = new ArrayList<>();
        locks.add(marked("cron", "h1", "L", 7));
        locks.add(marked("docs#permit-0", "r1", "R", 1));
        locks.add(marked("docs#permit-5", "r2", "R", 2));
        for (int i = 0; i < DistributedReadWriteLock.MAX_READERS; i++) {
            locks.add(marked("orders#permit-" + i, "w", "W", 10 + i));
        }

        List<String> lines = PermitViews.listTable(locks).render().lines().toList();

        assertThat(lines.get(1)).matches("cron +leader +h1 +\\S+L7 +7 +9\\.0s");
        assertThat(lines.get(2)).matches("docs +2 readers +2 holders +- +- +-");
        assertThat(lines.subList(3, 5)).allMatch(l -> l.matches(" +#permit-[05] +read +r[12] .*"));
        assertThat(lines.get(5)).matches("orders +writer +w +- +- +-");
        assertThat(lines.subList(6, 6 + DistributedReadWriteLock.MAX_READERS)).allMatch(l -> l.matches(" +#permit-\\d+ +write +w .*"));
        assertThat(LockViews.leaderLine(locks.get(0))).isEqualTo("leader of 'cron': h1, term 7 (the hold's fencing token), lease left 9.0s");
    }

    @Test
    void theSummaryOfAReadWriteLockSaysWhoReadsOrWrites() {
        PermitViews.Semaphore readers = new PermitViews.Semaphore("docs", List.of(
                PermitViews.member(marked("docs#permit-0", "r1", "R", 1)).orElseThrow(),
                PermitViews.member(marked("docs#permit-1", "r1", "R", 2)).orElseThrow()), null);
        List<PermitViews.Member> all = new ArrayList<>();
        for (int i = 0; i < DistributedReadWriteLock.MAX_READERS; i++) {
            all.add(PermitViews.member(marked("orders#permit-" + i, "w", "W", i + 1)).orElseThrow());
        }
        PermitViews.Semaphore written = new PermitViews.Semaphore("orders", all, null);
        PermitViews.Semaphore waiting = new PermitViews.Semaphore("docs", List.of(readers.permits().get(0),
                PermitViews.member(marked("docs#permit-2", "w", "W", 3)).orElseThrow()), marked("docs#gate", "w", "W", 4));

        assertThat(PermitViews.summary(readers, null)).isEqualTo("read-write lock 'docs': 2 readers of at most 16, by r1");
        assertThat(PermitViews.summary(written, 16)).isEqualTo("read-write lock 'orders': written by w (all 16 permits)");
        assertThat(PermitViews.summary(waiting, null)).isEqualTo("read-write lock 'docs': 1 reader of at most 16, by r1; w holds 1 "
                + "of its permits for a write: a writer waiting for the readers to leave");
        assertThat(PermitViews.json(written, null).toString()).contains("\"readWrite\":{\"readers\":0,\"writePermits\":16,\"writers\":[\"w\"]}");
    }

    @Test
    void aGroupOfOneHolderNamesIt() {
        List<String> lines = PermitViews.listTable(List.of(held("rw#permit-0", "writer", 1), held("rw#permit-1", "writer", 2)))
                .render().lines().toList();

        assertThat(lines.get(1)).matches("rw +2 permits +writer +- +- +-");
    }

    @Test
    void theSummarySaysWhatIsKnownAndALowerBoundOtherwise() {
        PermitViews.Semaphore two = new PermitViews.Semaphore("pool", List.of(
                PermitViews.member(held("pool#permit-0", "r1", 1)).orElseThrow(),
                PermitViews.member(held("pool#permit-2", "r2", 1)).orElseThrow()), null);
        PermitViews.Semaphore all = new PermitViews.Semaphore("rw", List.of(
                PermitViews.member(held("rw#permit-0", "w", 1)).orElseThrow(),
                PermitViews.member(held("rw#permit-1", "w", 2)).orElseThrow()), null);

        assertThat(PermitViews.summary(two, null))
                .isEqualTo("semaphore or read-write lock 'pool': 2 permits held, by 2 holders; it has at least 3 "
                        + "(#permit-2 is held; --permits N says how many)");
        assertThat(PermitViews.summary(two, 4)).isEqualTo("semaphore or read-write lock 'pool': 2 of 4 permits held, by 2 holders; 2 free");
        assertThat(PermitViews.summary(two, 2)).endsWith("it has at least 3 (#permit-2 is held, though --permits says 2)");
        assertThat(PermitViews.summary(all, 2))
                .isEqualTo("semaphore or read-write lock 'rw': 2 of 2 permits held, by w: a write lock, or 2 reads by one process");
        assertThat(PermitViews.summary(new PermitViews.Semaphore("none", List.of(), null), 3))
                .isEqualTo("semaphore or read-write lock 'none': 0 of 3 permits held; 3 free");
    }
}
