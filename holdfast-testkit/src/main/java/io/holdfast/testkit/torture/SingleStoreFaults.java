package io.holdfast.testkit.torture;

import io.holdfast.Durations;
import io.holdfast.testkit.torture.TortureResult.FaultWindow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The faults a {@link TortureRunner} injects into a run on one store (not a topology's servers, see {@link ClusterRun}):
 * a client killed or paused at the worst moment, a client partitioned from the store, the store restarted. Each
 * returns the window it opened; the runner schedules them, one at a time.
 */
final class SingleStoreFaults {
    private static final PartitionProxy.Mode[] PARTITION_MODES = {PartitionProxy.Mode.DELAY, PartitionProxy.Mode.DROP, PartitionProxy.Mode.RESET};

    private final TortureRunner run;
    private int partitions;
    private int pauses;

    SingleStoreFaults(TortureRunner run) {
        this.run = run;
    }

    /**
     * The client that holds the lock and has read the counters, with at least 10 ms of its pause before
     * writing ahead (waiting up to 3 s for one); else one that holds the lock; else a run.random live client.
     */
    private ClientProcess pickTarget() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (System.nanoTime() - deadline < 0 && !run.stopping) {
            for (ClientProcess p : run.clients) {
                if (p.isAlive() && p.inPauseOfAtLeast(10)) {
                    return p;
                }
            }
            Thread.sleep(0, 200_000);
        }
        for (ClientProcess p : run.clients) {
            if (p.isAlive() && p.holding() != 0) {
                return p;
            }
        }
        List<ClientProcess> alive = new ArrayList<>();
        for (ClientProcess p : run.clients) {
            if (p.isAlive()) {
                alive.add(p);
            }
        }
        return alive.isEmpty() ? run.clients[0] : alive.get(run.random.nextInt(alive.size()));
    }

    /** A live client that does not say it holds the lock, at run.random; the first client if none. */
    private ClientProcess pickWaiter() {
        List<ClientProcess> waiting = new ArrayList<>();
        for (ClientProcess p : run.clients) {
            if (p.isAlive() && p.holding() == 0) {
                waiting.add(p);
            }
        }
        return waiting.isEmpty() ? run.clients[0] : waiting.get(run.random.nextInt(waiting.size()));
    }

    FaultWindow kill() throws Exception {
        ClientProcess target = pickTarget();
        long token = target.holding();
        long start = Event.now();
        target.kill();
        run.lives.add(target.life());
        Thread.sleep(300);
        ClientProcess replacement = run.startClient(target.client, target.incarnation + 1);
        run.clients[target.client - 1] = replacement;
        boolean ready = replacement.awaitReady(Duration.ofSeconds(60));
        return new FaultWindow(Fault.KILL, start, Event.now(), "client " + target.client, token,
                "SIGKILL pid " + target.process.pid() + "; replaced by pid " + replacement.process.pid()
                        + (ready ? "" : " (not ready within 60s)"), null);
    }

    /**
     * Every other pause lasts a fixed 1.5 leases plus half a second; the ones between wait for the lock to
     * pass to another client and for that client to read the counters, and resume the paused holder then, so
     * that its stale writes land inside the new holder's critical section, between its read and its write:
     * the interleaving that defeats a fence checked at the write only.
     */
    FaultWindow pause() throws Exception {
        ClientProcess target = pickTarget();
        long token = target.holding();
        boolean untilSuccessor = token != 0 && pauses++ % 2 == 0;
        long start = Event.now();
        long startNanos = System.nanoTime();
        boolean stopped = run.signals.send(target.process.pid(), "STOP");
        String how;
        try {
            if (untilSuccessor) {
                long latest = startNanos + run.pauseLength().multipliedBy(2).toNanos();
                ClientProcess successor = null;
                while (successor == null && System.nanoTime() - latest < 0 && !run.stopping) {
                    for (ClientProcess p : run.clients) {
                        // With permits, another client may hold one already: wait for a later acquisition.
                        if (p != target && p.isAlive() && p.betweenReadAndWrite() && p.holding() != token
                                && (!run.settings.sharedHolds() || p.holding() > token)) {
                            successor = p;
                        }
                    }
                    Thread.sleep(0, 200_000);
                }
                if (successor != null) {
                    how = String.format(Locale.ROOT, "SIGSTOP until client %d held the lock (token %d) and had read the counters "
                            + "(after %.2fs); SIGCONT", successor.client, successor.holding(), (System.nanoTime() - startNanos) / 1e9);
                } else {
                    how = "SIGSTOP; no other client took the lock within " + Durations.format(run.pauseLength().multipliedBy(2)) + "; SIGCONT";
                }
            } else {
                run.sleepUntil(startNanos + run.pauseLength().toNanos(), false);
                how = "SIGSTOP for " + Durations.format(run.pauseLength()) + ", then SIGCONT";
            }
        } finally {
            run.signals.send(target.process.pid(), "CONT");
        }
        return new FaultWindow(Fault.PAUSE, start, Event.now(), "client " + target.client, token,
                stopped ? how : "SIGSTOP failed (the process was gone)", null);
    }

    /**
     * Partitions rotate through delay, drop and reset, and alternate between a waiting client (its next
     * acquire is answered late, lost, or refused) and the holder (its release and renewals are).
     */
    FaultWindow partition() throws Exception {
        int n = partitions++;
        ClientProcess target = n % 2 == 0 ? pickWaiter() : pickTarget();
        long token = target.holding();
        if (run.clusterRun != null) {
            return run.clusterRun.partitionClient(target, token, token != 0 ? "the holder" : "a waiter");
        }
        PartitionProxy.Mode mode = PARTITION_MODES[n % PARTITION_MODES.length];
        List<PartitionProxy> mine = run.proxies.get(target.client - 1);
        long start = Event.now();
        for (PartitionProxy p : mine) {
            switch (mode) {
                case DROP -> p.drop();
                case RESET -> p.reset();
                default -> p.delay(run.settings.lease());
            }
        }
        try {
            run.sleepUntil(System.nanoTime() + run.pauseLength().toNanos(), false);
        } finally {
            mine.forEach(PartitionProxy::heal);
        }
        String how = switch (mode) {
            case DROP -> "traffic dropped (connections black-holed)";
            case RESET -> "connections reset and refused";
            default -> "traffic delayed by " + Durations.format(run.settings.lease()) + " each way";
        };
        return new FaultWindow(Fault.PARTITION, start, Event.now(), "client " + target.client, token,
                (token != 0 ? "the holder: " : "a waiter: ") + how + " for " + Durations.format(run.pauseLength()) + ", then healed", null);
    }

    /**
     * Restarts the store while a holder is between its read and its write (waiting up to 3 s for one with
     * half its think time ahead), so that a store which forgets its holds on restart can grant the lock to
     * another client while the old holder is still at work.
     */
    FaultWindow restartStore() throws Exception {
        ClientProcess holder = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        long ahead = run.settings.think().toMillis() / 2;
        while (holder == null && System.nanoTime() - deadline < 0 && !run.stopping) {
            for (ClientProcess p : run.clients) {
                if (p.isAlive() && p.inPauseOfAtLeast(ahead)) {
                    holder = p;
                }
            }
            Thread.sleep(0, 200_000);
        }
        long token = holder == null ? 0 : holder.holding();
        long start = Event.now();
        run.storeControl.kill();
        Thread.sleep(run.settings.restartDowntime().toMillis());
        Exception failure = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                run.storeControl.start();
                failure = null;
                break;
            } catch (Exception e) {
                failure = e;
                Thread.sleep(1_000);
            }
        }
        if (failure != null) {
            throw new IllegalStateException("the store did not start again: " + failure, failure);
        }
        return new FaultWindow(Fault.RESTART, start, Event.now(), "store", token,
                run.storeControl.describe() + " killed, down " + Durations.format(run.settings.restartDowntime()) + ", started again"
                        + (holder == null ? "" : " (client " + holder.client + " was between its read and its write)"), null);
    }
}
