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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code holdfast status NAME}: one lock's holder, owner, fencing token and lease left. */
@Command(name = "status", sortOptions = false,
        description = {"Shows who holds lock NAME: holder (host:pid), owner id, fencing token and the lease left "
                + "by the store's clock. A free lock shows the last token issued.",
                "Exits 0 whether or not the lock is held; use --json and its \"held\" field in scripts."})
final class StatusCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    StoreOptions store;
    @Option(names = "--json", description = "Print one JSON object: name, known, held, holder, ownerId, fencingToken, "
            + "leaseRemainingMillis (null where there is nothing to say).")
    boolean json;
    @Parameters(paramLabel = "NAME", description = "The lock name.")
    String name;

    @Override
    public Integer call() {
        try {
            LockNames.requireValid(name);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        Optional<LockInfo> info = Optional.empty();
        Optional<java.nio.file.Path> missing = store.missingSqliteFile();
        if (missing.isEmpty()) {
            try (Holdfast holdfast = store.connect()) {
                info = holdfast.admin().status(name);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Json.Obj obj = info.map(i -> LockViews.json(i, true))
                    .orElseGet(() -> Json.object().put("name", name).put("known", false).put("held", false)
                            .put("holder", null).put("ownerId", null).put("fencingToken", null)
                            .put("leaseRemainingMillis", null));
            out.println(obj);
        } else if (info.isEmpty()) {
            out.println("lock '" + name + "' is not known to the store ("
                    + missing.map(p -> "no database file at " + p).orElse("never taken") + ")");
        } else {
            out.print(LockViews.table(List.of(info.get())).render());
        }
        out.flush();
        return ExitCodes.OK;
    }
}
