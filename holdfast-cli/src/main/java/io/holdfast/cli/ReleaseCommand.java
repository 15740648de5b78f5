package io.holdfast.cli;

import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import io.holdfast.LockNames;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code holdfast release --force NAME}: an operator frees a lock whoever holds it. */
@Command(name = "release", sortOptions = false,
        description = {"Frees lock NAME whoever holds it (an operator's action; requires --force).",
                "The holder learns of it at its next renewal: a 'holdfast run' then terminates its command and exits 76. "
                        + "Until then two processes may act at once; only a fencing-token check at the resource "
                        + "catches that."})
final class ReleaseCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    StoreOptions store;
    @Option(names = "--force", description = "Confirm the forced release.")
    boolean force;
    @Parameters(paramLabel = "NAME", description = "The lock name.")
    String name;

    @Override
    public Integer call() {
        try {
            LockNames.requireValid(name);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (!force) {
            throw new ParameterException(spec.commandLine(), "refusing to release '" + name + "' without --force: "
                    + "a forced release frees the lock while its holder may still be working, so another process "
                    + "can take it and both act at once; locks are released by their holders, and a crashed holder's "
                    + "lock frees by itself when its lease runs out");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (Holdfast holdfast = store.connect()) {
            Optional<LockInfo> before = holdfast.admin().status(name);
            boolean freed = holdfast.admin().forceRelease(name);
            if (freed) {
                out.println("released '" + name + "'" + before.filter(LockInfo::held)
                        .map(i -> " (it was held by " + i.holder() + ", owner " + i.ownerId() + ", token " + i.fencingToken() + ")")
                        .orElse(""));
            } else {
                out.println("lock '" + name + "' was not held; nothing to release");
            }
        }
        out.flush();
        return ExitCodes.OK;
    }
}
