package io.holdfast.cli;

import io.holdfast.Holdfast;
import io.holdfast.LockInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code holdfast list [PREFIX]}: the held locks, in name order. */
@Command(name = "list", sortOptions = false,
        description = {"Lists held locks whose names start with PREFIX (all if omitted), in name order.",
                "The locks of a semaphore or read-write lock NAME show under a row NAME with the number of permits held "
                        + "(a read holds one, a write all): each permit NAME#permit-i held, and NAME#gate as acquiring while "
                        + "an acquire takes its permits.",
                "HELD says leader for an elected leader's lock (its TOKEN is the term), and read or write for a read-write "
                        + "lock's permits, whose group row counts its readers or names its writer."})
final class ListCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    StoreOptions store;
    @Option(names = "--json", description = "Print a JSON array of objects: name, held, role (lock, leader, "
            + "reader or writer), holder, ownerId, "
            + "fencingToken, leaseRemainingMillis; a semaphore's locks also have semaphore (its name) and permit (the "
            + "index, null for its gate).")
    boolean json;
    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
            description = "Show at most N locks (default: ${DEFAULT-VALUE}).")
    int limit;
    @Parameters(paramLabel = "PREFIX", arity = "0..1", defaultValue = "", description = "Name prefix, e.g. jobs/.")
    String prefix;

    @Override
    public Integer call() {
        if (limit < 1) {
            throw new ParameterException(spec.commandLine(), "--limit " + limit + " is not allowed; allowed: 1 or more");
        }
        List<LockInfo> locks = List.of();
        java.util.Optional<java.nio.file.Path> missing = store.missingSqliteFile();
        if (missing.isEmpty()) {
            try (Holdfast holdfast = store.connect()) {
                locks = holdfast.admin().list(prefix, limit);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            List<Object> array = new ArrayList<>();
            for (LockInfo info : locks) {
                Json.Obj obj = LockViews.json(info);
                PermitViews.member(info).ifPresent(m -> obj.put("semaphore", m.semaphore()).put("permit", m.isGate() ? null : m.permit()));
                array.add(obj);
            }
            out.println(Json.write(array));
        } else if (locks.isEmpty()) {
            out.println((prefix.isEmpty() ? "no held locks" : "no held locks start with '" + prefix + "'")
                    + missing.map(p -> " (no database file at " + p + ")").orElse(""));
        } else {
            out.print(PermitViews.listTable(locks).render());
            if (locks.size() == limit) {
                out.println("(showing the first " + limit + "; raise --limit for more)");
            }
        }
        out.flush();
        return ExitCodes.OK;
    }
}
