package io.holdfast.cli;

import io.holdfast.DistributedLock;
import io.holdfast.DistributedReadWriteLock;
import io.holdfast.DistributedSemaphore;
import io.holdfast.Durations;
import io.holdfast.Hold;
import io.holdfast.HoldLostListener;
import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import io.holdfast.LockLostException;
import io.holdfast.LockNames;
import io.holdfast.PermitHold;
import io.holdfast.PermitLock;
import io.holdfast.StoreUnavailableException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * {@code holdfast run NAME -- COMMAND...}: runs COMMAND while holding NAME. The lease is renewed while
 * COMMAND runs; if the hold is lost anyway, COMMAND is terminated and the exit status says so.
 */
@Command(name = "run", sortOptions = false,
        customSynopsis = {"holdfast run [--uri=URI] [--wait=DURATION] [--lease=DURATION] [--grace=DURATION]",
                "             [-E N] [--shared | --exclusive | --permits=N] NAME -- COMMAND [ARG...]"},
        description = {"Runs COMMAND while holding lock NAME, renewing the lease while it runs, and exits with "
                + "COMMAND's status.",
                "COMMAND gets HOLDFAST_LOCK (the name) and HOLDFAST_FENCING_TOKEN (greater than every token issued "
                        + "before for NAME) in its environment, and holdfast's stdin, stdout and stderr.",
                "SIGINT, SIGTERM and SIGHUP are passed on to COMMAND; the lock is released once it exits. If the hold "
                        + "is lost while COMMAND runs, COMMAND gets SIGTERM (SIGKILL after --grace) and holdfast exits 76. "
                        + "If holdfast itself is killed, the lock frees when its lease runs out and COMMAND gets SIGTERM.",
                "If the lock is not acquired (taken, with --wait 0; or not free within --wait), nothing runs and holdfast "
                        + "exits 75, or N with -E N: -E 0 lets a cron job that another host runs skip without failing.",
                "With --shared or --exclusive, NAME is a read-write lock (holdfast.readWriteLock(NAME) in Java): up to 16 "
                        + "--shared runs share it (more wait), an --exclusive run excludes them all. With --permits N, NAME is a "
                        + "semaphore of N permits and the run takes one. These are other locks than the plain lock NAME.",
                "Put -- before COMMAND so that its options are not read as holdfast's."})
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    StoreOptions store;
    @Option(names = "--wait", paramLabel = "DURATION", defaultValue = "0s", converter = DurationConverter.class,
            description = "How long to wait for the lock; 0 (the default) gives up at once, for cron jobs that "
                    + "must run on one host. Durations: 500ms, 10s, 5m, 2h, PT10S.")
    Duration wait;
    /** Null: the client's default lease (30 s, or the store's longest if shorter, as a ZooKeeper ensemble's may be). */
    @Option(names = "--lease", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Lease of the hold (default: 30s, or the longest the store keeps if that is shorter), renewed "
                    + "every third of it while COMMAND runs; if holdfast dies, the lock frees within this time. Allowed: "
                    + "100ms to 7d, narrowed by the store (ZooKeeper: 1s to its maxSessionTimeout).")
    Duration lease;
    @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
            description = "When the hold is lost: time between SIGTERM and SIGKILL to COMMAND (default: ${DEFAULT-VALUE}).")
    Duration grace;
    @Option(names = {"-E", "--conflict-exit-code"}, paramLabel = "N", defaultValue = "" + ExitCodes.NOT_ACQUIRED,
            converter = ExitStatusConverter.class,
            description = "Exit status when the lock is not acquired (taken, or not free within --wait), as flock -E; "
                    + "default: ${DEFAULT-VALUE}. Allowed: 0 to 255.")
    int conflictExitCode;
    @Option(names = "--shared", description = "Take a read lock of the read-write lock NAME: shared with other --shared "
            + "runs (up to 16 at once, as for every client of the lock; more wait), excluded by an --exclusive run. A plain "
            + "run of NAME is another lock and does not "
            + "exclude it.")
    boolean shared;
    @Option(names = "--exclusive", description = "Take the write lock of the read-write lock NAME: no --shared or "
            + "--exclusive run of NAME at the same time. A waiting --exclusive run is not overtaken by later --shared ones.")
    boolean exclusive;
    @Option(names = "--permits", paramLabel = "N", description = "Take one of the N permits of the semaphore NAME: at most "
            + "N such runs at once. Every run (and Java client) of NAME must give the same N: nothing checks it, and runs "
            + "that disagree let in up to the largest N at once. Allowed: 1 to 64.")
    Integer permits;
    @Parameters(index = "0", paramLabel = "NAME", description = "The lock name.")
    String name;
    @Parameters(index = "1..*", arity = "1..*", paramLabel = "COMMAND", description = "The command and its arguments.")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        validate();
        if (Processes.findExecutable(command.get(0)).isEmpty()) {
            err.println("holdfast: cannot run '" + command.get(0) + "': "
                    + (command.get(0).contains("/") ? "no such executable file" : "not found in PATH"));
            err.flush();
            return ExitCodes.CANNOT_START;
        }
        try (Holdfast holdfast = store.connect()) {
            Acquire lock = acquire(holdfast);
            CommandSupervisor supervisor = new CommandSupervisor(err, grace);
            supervisor.install();
            try {
                return runHolding(holdfast, lock, supervisor, err);
            } finally {
                supervisor.finished();
                err.flush();
            }
        }
    }

    private void validate() {
        try {
            LockNames.requireValid(name);
            if (lease != null) {
                Durations.requireLease(lease); // before connecting; the store's own range is checked once connected
            }
            Durations.requireWait(wait);
            CommandSupervisor.requireGrace(grace);
            if ((shared ? 1 : 0) + (exclusive ? 1 : 0) + (permits != null ? 1 : 0) > 1) {
                throw new IllegalArgumentException("--shared, --exclusive and --permits are ways to take NAME; give one at most");
            }
            if (permits != null) {
                DistributedSemaphore.requireValid(name, permits); // the count, and room in NAME for its locks' suffixes
            } else if (shared || exclusive) {
                DistributedReadWriteLock.requireValidName(name);
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** What a run takes: a lock, a read or write lock, or a permit; the handle is made before anything waits. */
    @FunctionalInterface
    private interface Acquire {
        /** Empty if not acquired within {@code wait} (not at all with zero). */
        Optional<Held> within(Duration wait) throws InterruptedException;
    }

    /** What a run holds while COMMAND runs: a lock's {@link Hold} or a {@link PermitHold}, alike. */
    private record Held(long fencingToken, BooleanSupplier valid, Supplier<String> lossReason,
                        Consumer<HoldLostListener> onLost, Runnable close) {
        static Held of(Hold h) {
            return new Held(h.fencingToken(), h::isValid, h::lossReason, h::onLost, h::close);
        }

        static Held of(PermitHold h) {
            return new Held(h.fencingToken(), h::isValid, h::lossReason, h::onLost, h::close);
        }
    }

    private Acquire acquire(Holdfast holdfast) {
        if (permits != null) {
            DistributedSemaphore semaphore = lease == null ? holdfast.semaphore(name, permits)
                    : holdfast.semaphore(name, permits, lease, true);
            return w -> (w.isZero() ? semaphore.tryAcquire(1) : semaphore.tryAcquire(1, w)).map(Held::of);
        }
        if (shared || exclusive) {
            DistributedReadWriteLock rw = lease == null ? holdfast.readWriteLock(name) : holdfast.readWriteLock(name, lease, true);
            PermitLock side = shared ? rw.readLock() : rw.writeLock();
            return w -> (w.isZero() ? side.tryAcquire() : side.tryAcquire(w)).map(Held::of);
        }
        DistributedLock lock = lease == null ? holdfast.lock(name) : holdfast.lock(name, lease, true);
        return w -> (w.isZero() ? lock.tryAcquire() : lock.tryAcquire(w)).map(Held::of);
    }

    /** How the run names what it takes, in messages. */
    private String what() {
        if (permits != null) {
            return "a permit of semaphore '" + name + "' (" + permits + " permits)";
        }
        return shared ? "a read lock of '" + name + "'" : exclusive ? "the write lock of '" + name + "'" : "lock '" + name + "'";
    }

    private int runHolding(Holdfast holdfast, Acquire lock, CommandSupervisor supervisor, PrintWriter err) {
        Optional<Held> acquired;
        try {
            acquired = lock.within(wait);
        } catch (InterruptedException e) {
            String signal = supervisor.pendingSignal();
            err.println("holdfast: got SIG" + signal + " while waiting for '" + name + "'; nothing was run");
            return 128 + Processes.signalNumber(signal);
        }
        if (acquired.isEmpty()) {
            err.println("holdfast: " + what() + " " + (wait.isZero() ? "is taken; not waiting (--wait 0)"
                    : "was not acquired within " + Durations.format(wait)) + (shared || exclusive || permits != null ? "" : heldBy(holdfast)));
            return conflictExitCode;
        }
        Held hold = acquired.get();
        hold.onLost().accept((h, reason) -> supervisor.lost("the hold on '" + name + "' (token " + hold.fencingToken() + ")", reason));
        ProcessBuilder builder = new ProcessBuilder(childCommand()).inheritIO();
        builder.environment().put("HOLDFAST_LOCK", name);
        builder.environment().put("HOLDFAST_FENCING_TOKEN", Long.toString(hold.fencingToken()));

        CommandSupervisor.Start start = supervisor.start(builder, hold.valid());
        if (start != CommandSupervisor.Start.STARTED) {
            releaseQuietly(hold, err);
            return supervisor.notStarted(start, command.get(0), "the hold on '" + name + "' was lost before '"
                    + command.get(0) + "' started: " + hold.lossReason().get());
        }
        int status = supervisor.awaitChild();
        boolean terminatedForLoss = supervisor.terminatedForLoss();
        String lostBeforeRelease = null;
        try {
            hold.close().run();
        } catch (LockLostException e) {
            lostBeforeRelease = e.getMessage();
        } catch (StoreUnavailableException e) {
            err.println("holdfast: warning: " + e.getMessage());
        }
        if (terminatedForLoss) {
            err.println("holdfast: '" + command.get(0) + "' was terminated (status " + status + ") because the hold on '"
                    + name + "' was lost: " + hold.lossReason().get());
            return ExitCodes.HOLD_LOST;
        }
        if (lostBeforeRelease != null) {
            // The loss came to light only as the command finished: part of its run may have overlapped another holder.
            err.println("holdfast: " + lostBeforeRelease + " ('" + command.get(0) + "' exited with status " + status + ")");
            return ExitCodes.HOLD_LOST;
        }
        return status;
    }

    private List<String> childCommand() {
        return Processes.withParentDeathSignal(command);
    }

    private String heldBy(Holdfast holdfast) {
        try {
            return holdfast.admin().status(name).filter(LockInfo::held)
                    .map(i -> "; it is held by " + i.holder() + " (token " + i.fencingToken() + ", lease left "
                            + LockViews.leaseLeft(i.leaseRemaining()) + ")")
                    .orElse("");
        } catch (RuntimeException e) {
            return "";
        }
    }

    private static void releaseQuietly(Held hold, PrintWriter err) {
        try {
            hold.close().run();
        } catch (RuntimeException e) {
            err.println("holdfast: warning: " + e.getMessage());
        }
    }
}
