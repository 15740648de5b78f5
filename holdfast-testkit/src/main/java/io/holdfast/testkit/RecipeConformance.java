package io.holdfast.testkit;

import io.holdfast.Hold;
import io.holdfast.Holdfast;
import io.holdfast.LeaderElection;
import io.holdfast.LockInfo;
import io.holdfast.LockLostException;
import io.holdfast.MultiHold;
import io.holdfast.MultiLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The recipes built on the mutex, on every backend: multi-locks (all or nothing, one global order, a token per
 * name, a lost part loses the whole) and leader election (one leader at a time, terms that increase, a killed
 * leader succeeded after its lease). Each test is short: 2 s leases and a few rounds, a few seconds per backend.
 */
public abstract class RecipeConformance extends PermitConformance {
    private static final Duration LEASE = Duration.ofSeconds(2);

    /**
     * Multi-lock exclusion and order: two clients take overlapping sets of three names given in opposite orders,
     * four times each, doing read-sleep-write on a plain counter per name: both finish (no deadlock), every
     * counter is exact, and each name's tokens increase in the order of the critical sections.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    public void multiLocksGivenInOppositeOrdersExcludeAndNeverDeadlock() throws Exception {
        String a = name("multi-a");
        String b = name("multi-b");
        String c = name("multi-c");
        List<MultiLock> locks = List.of(client().multiLock(a, b, c), client().multiLock(c, b, a));
        int rounds = 4;
        Map<String, int[]> counters = Map.of(a, new int[1], b, new int[1], c, new int[1]);
        Map<String, List<Long>> tokens = Map.of(a, new ArrayList<>(), b, new ArrayList<>(), c, new ArrayList<>());
        Map<String, AtomicInteger> inside = Map.of(a, new AtomicInteger(), b, new AtomicInteger(), c, new AtomicInteger());
        AtomicInteger mostInside = new AtomicInteger();
        ExecutorService threads = executor(locks.size());
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        for (MultiLock lock : locks) {
            workers.add(threads.submit(() -> {
                go.await();
                for (int i = 0; i < rounds; i++) {
                    try (MultiHold hold = lock.acquire(Duration.ofSeconds(60))) {
                        for (String n : hold.lockNames()) {
                            // The gauge's read-modify-writes also order the counter's accesses between threads,
                            // so a wrong count can only come from two holders at once.
                            mostInside.accumulateAndGet(inside.get(n).incrementAndGet(), Math::max);
                            int read = counters.get(n)[0]; // plain: only the locks keep read-sleep-write exact
                            tokens.get(n).add(hold.fencingToken(n));
                            Thread.sleep(1);
                            counters.get(n)[0] = read + 1;
                            inside.get(n).decrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> worker : workers) {
            worker.get(80, TimeUnit.SECONDS); // a deadlock fails here, or at the timeout with a thread dump
        }
        assertThat(mostInside.get()).as("holders of one name inside at once, at most").isEqualTo(1);
        for (String n : List.of(a, b, c)) {
            assertThat(counters.get(n)[0]).as("increments of %s under the multi-locks", n).isEqualTo(2 * rounds);
            assertStrictlyIncreasing(n, tokens.get(n));
        }
    }

    /**
     * Multi-lock all or nothing, tokens and loss: with one name held elsewhere, a multi-lock's tryAcquire and timed
     * wait take nothing (the store shows its other name free); once it is free, every part's token is the store's;
     * an operator's force-release of one part is a loss of the whole, and close() still releases the other.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    public void aMultiLockTakesAllOrNothingAndLosesTheWholeWithOnePart() throws Exception {
        String a = name("all-a");
        String b = name("all-b");
        Holdfast holder = client();
        Holdfast operator = client();
        MultiLock lock = holder.multiLock(List.of(b, a), LEASE, true);
        Hold other = operator.lock(b).acquire(SOON);
        assertThat(lock.tryAcquire()).as("tryAcquire() with '%s' held elsewhere", b).isEmpty();
        assertThat(lock.tryAcquire(Duration.ofMillis(200))).as("tryAcquire(200ms) with '%s' held elsewhere", b).isEmpty();
        assertThat(operator.admin().status(a).map(LockInfo::held)).as("'%s' after both gave up", a).isNotEqualTo(java.util.Optional.of(true));
        other.close();

        MultiHold hold = lock.acquire(SOON);
        for (String n : List.of(a, b)) {
            assertThat(operator.admin().status(n).map(LockInfo::fencingToken)).as("the store's token for %s", n)
                    .contains(hold.fencingToken(n));
        }
        CountDownLatch lost = new CountDownLatch(1);
        hold.onLost((part, reason) -> {
            if (part.lockName().equals(b)) {
                lost.countDown();
            }
        });
        assertThat(operator.admin().forceRelease(b)).isTrue();
        assertThat(lost.await(30, TimeUnit.SECONDS)).as("told of the loss of %s within 30 s", b).isTrue();
        assertThat(hold.isValid()).isFalse();
        assertThatThrownBy(hold::checkValid).isInstanceOf(LockLostException.class).hasMessageContaining(b);
        assertThatThrownBy(hold::close).isInstanceOf(LockLostException.class);
        try (Hold next = operator.lock(a).tryAcquire().orElseThrow(() -> new AssertionError("close() left " + a + " held"))) {
            assertThat(next.fencingToken()).isGreaterThan(hold.fencingToken(a));
        }
    }

    /**
     * Election: three clients run for one name; three times, exactly one is leader, its term is the store's token
     * and greater than the last, and when it resigns another is elected. Never two leaders at once in any look.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    public void anElectionHasOneLeaderAtATimeWithIncreasingTerms() throws Exception {
        String name = name("election");
        List<Holdfast> clients = List.of(client(), client(), client());
        List<LeaderElection> elections = new ArrayList<>();
        for (Holdfast c : clients) {
            LeaderElection e = c.leader(name, LEASE);
            elections.add(e);
            e.start();
        }
        long lastTerm = 0;
        for (int round = 0; round < 3; round++) {
            int leader = awaitTheOneLeader(elections);
            long term = elections.get(leader).term().orElseThrow();
            assertThat(term).as("term of round %d", round).isGreaterThan(lastTerm);
            LockInfo status = clients.get(0).admin().status(name).orElseThrow(() -> new AssertionError("no status for a led name"));
            assertThat(status.fencingToken()).as("the store's token in round %d", round).isEqualTo(term);
            assertThat(status.role()).as("the role status shows for the leader's hold (status and list tell a leader by it)")
                    .isEqualTo(LockInfo.Role.LEADER);
            lastTerm = term;
            elections.get(leader).close(); // resigns; that client runs again with a new candidacy
            LeaderElection again = clients.get(leader).leader(name, LEASE);
            elections.set(leader, again);
            again.start();
        }
    }

    /**
     * Election: a leader process killed with SIGKILL is succeeded by a waiting candidate once its lease runs out,
     * with a greater term. Not a test of its own here: it starts a JVM and waits out a lease, the election is the
     * core's on every backend, and every backend's killed holder is covered by the mutex suite; so one backend per
     * way a candidate learns that the lock is free (polling, pub/sub, a store-ordered queue with watches, a session
     * that expires) calls it from a {@code @Test} of its own, and no other backend reports it skipped.
     */
    protected void killedLeaderProcessIsSucceededOnceItsLeaseRunsOut() throws Exception {
        String name = name("killed-leader");
        try (ChildJvm child = ChildJvm.start(LeaderProcess.class, uri(), name, "2s")) {
            String elected = child.awaitLine(l -> l.startsWith(LeaderProcess.ELECTED), Duration.ofSeconds(90));
            long childTerm = Long.parseLong(elected.substring(LeaderProcess.ELECTED.length()).trim());
            Holdfast survivor = client();
            LeaderElection candidate = survivor.leader(name, LEASE);
            BlockingQueue<Long> terms = new LinkedBlockingQueue<>();
            candidate.onElected(terms::add);
            candidate.start();
            LockInfo info = survivor.admin().status(name).orElseThrow(() -> new AssertionError("no status for a led name"));
            assertThat(info.fencingToken()).isEqualTo(childTerm);
            assertThat(info.holder()).as("holder of the child's leadership").endsWith(":" + child.pid());
            assertThat(candidate.isLeader()).as("the candidate while the child leads").isFalse();

            child.kill();
            Long term = terms.poll(LEASE.plus(SOON).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(term).as("the candidate elected after the killed leader's lease").isNotNull();
            assertThat(term).isGreaterThan(childTerm);
            assertThat(candidate.isLeader()).isTrue();
        }
    }

    /** Polls until exactly one election leads (at most 20 s), failing if any look sees two. */
    private static int awaitTheOneLeader(List<LeaderElection> elections) throws InterruptedException {
        long deadline = System.nanoTime() + SOON.toNanos();
        while (System.nanoTime() - deadline < 0) {
            int leaders = 0;
            int found = -1;
            for (int i = 0; i < elections.size(); i++) {
                if (elections.get(i).isLeader()) {
                    leaders++;
                    found = i;
                }
            }
            assertThat(leaders).as("leaders in one look").isLessThanOrEqualTo(1);
            if (leaders == 1) {
                return found;
            }
            Thread.sleep(5);
        }
        return fail("no leader elected within " + SOON);
    }

    private static void assertStrictlyIncreasing(String name, List<Long> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            if (tokens.get(i) <= tokens.get(i - 1)) {
                fail("fencing tokens of " + name + " not strictly increasing at position " + i + ": " + tokens);
            }
        }
    }
}
