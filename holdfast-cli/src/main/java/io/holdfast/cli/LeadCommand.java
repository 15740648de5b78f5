package io.holdfast.cli;

import io.holdfast.Durations;
import io.holdfast.Holdfast;
import io.holdfast.LeaderElection;
import io.holdfast.LockNames;
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
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * {@code holdfast lead NAME -- COMMAND...}: stands for leader of NAME, runs COMMAND once elected, stops it if the
 * leadership is lost, and resigns when it exits.
 */
@Command(name = "lead", sortOptions = false,
        customSynopsis = "holdfast lead [--uri=URI] [--lease=DURATION] [--grace=DURATION] NAME -- COMMAND [ARG...]",
        description = {"Stands for leader of NAME among every 'holdfast lead NAME' (and Java holdfast.leader(NAME)) on the "
                + "store, waits its turn without a time limit, runs COMMAND once elected, and exits with COMMAND's status, "
                + "resigning so that the next candidate is elected at once.",
                "COMMAND gets HOLDFAST_LOCK (the name) and HOLDFAST_FENCING_TOKEN (the term: greater than every term before "
                        + "for NAME) in its environment, and holdfast's stdin, stdout and stderr.",
                "If the leadership is lost while COMMAND runs (revoked when its lease could not be renewed in time, before "
                        + "another candidate can be elected, or force-released), COMMAND gets SIGTERM (SIGKILL after --grace) "
                        + "and holdfast exits 76; a service manager that restarts it makes it stand again.",
                "SIGINT, SIGTERM and SIGHUP are passed on to COMMAND; while holdfast waits to be elected they end the wait "
                        + "(exit 128+N, nothing run). If holdfast itself is killed, the next candidate is elected when its lease "
                        + "runs out and COMMAND gets SIGTERM.",
                "Put -- before COMMAND so that its options are not read as holdfast's."})
final class LeadCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    StoreOptions store;
    @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
            description = "Lease of the leadership (default: ${DEFAULT-VALUE}), renewed every third of it while COMMAND runs; "
                    + "if holdfast dies, the next candidate is elected within this time.")
    Duration lease;
    @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
            description = "When the leadership is lost: time between SIGTERM and SIGKILL to COMMAND (default: ${DEFAULT-VALUE}).")
    Duration grace;
    @Parameters(index = "0", paramLabel = "NAME", description = "The name to lead (a lock name).")
    String name;
    @Parameters(index = "1..*", arity = "1..*", paramLabel = "COMMAND", description = "The command and its arguments.")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        try {
            LockNames.requireValid(name);
            Durations.requireLease(lease);
            CommandSupervisor.requireGrace(grace);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (Processes.findExecutable(command.get(0)).isEmpty()) {
            err.println("holdfast: cannot run '" + command.get(0) + "': "
                    + (command.get(0).contains("/") ? "no such executable file" : "not found in PATH"));
            err.flush();
            return ExitCodes.CANNOT_START;
        }
        try (Holdfast holdfast = store.connect()) {
            LeaderElection election = holdfast.leader(name, lease);
            CommandSupervisor supervisor = new CommandSupervisor(err, grace);
            supervisor.install();
            try {
                return lead(election, supervisor, err);
            } finally {
                supervisor.finished();
                election.close();
                err.flush();
            }
        }
    }

    private int lead(LeaderElection election, CommandSupervisor supervisor, PrintWriter err) {
        CompletableFuture<Long> elected = new CompletableFuture<>();
        election.onElected(elected::complete);
        election.onRevoked((term, reason) -> {
            supervisor.lost(leadership(term), reason);
            election.close(); // this run ends once COMMAND has stopped; it does not stand again
        });
        election.start();
        long term;
        try {
            term = elected.get();
        } catch (InterruptedException e) {
            String signal = supervisor.pendingSignal();
            err.println("holdfast: got SIG" + signal + " while waiting to be elected leader of '" + name + "'; nothing was run");
            return 128 + Processes.signalNumber(signal);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the election's future failed", e); // it is only ever completed with a term
        }
        ProcessBuilder builder = new ProcessBuilder(Processes.withParentDeathSignal(command)).inheritIO();
        builder.environment().put("HOLDFAST_LOCK", name);
        builder.environment().put("HOLDFAST_FENCING_TOKEN", Long.toString(term));

        CommandSupervisor.Start start = supervisor.start(builder, election::isLeader);
        if (start != CommandSupervisor.Start.STARTED) {
            return supervisor.notStarted(start, command.get(0), leadership(term) + " was lost before '" + command.get(0) + "' started");
        }
        int status = supervisor.awaitChild();
        boolean stillLeader = election.isLeader();
        election.close(); // resigns: the next candidate is elected at once
        if (supervisor.terminatedForLoss()) {
            err.println("holdfast: '" + command.get(0) + "' was terminated (status " + status + ") because " + leadership(term) + " was lost");
            return ExitCodes.HOLD_LOST;
        }
        if (!stillLeader) {
            // The loss came to light only as the command finished: part of its run may have overlapped another leader.
            err.println("holdfast: " + leadership(term) + " was lost as '" + command.get(0) + "' finished (status " + status
                    + "); part of its run may have overlapped the next leader's");
            return ExitCodes.HOLD_LOST;
        }
        return status;
    }

    private String leadership(long term) {
        return "the leadership of '" + name + "' (term " + term + ")";
    }
}
