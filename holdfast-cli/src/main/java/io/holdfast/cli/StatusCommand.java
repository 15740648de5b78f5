package io.holdfast.cli;

import io.holdfast.DistributedSemaphore;
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

/**
 * {@code holdfast status NAME}: one lock's holder, owner, fencing token and lease left; and the permits held of the
 * semaphore or read-write lock NAME, if any.
 */
@Command(name = "status", sortOptions = false,
        description = {"Shows who holds lock NAME: holder (host:pid), owner id, fencing token and the lease left "
                + "by the store's clock. A free lock shows the last token issued where the store keeps one "
                + "(ZooKeeper keeps none: 0).",
                "If NAME is a semaphore or read-write lock (its locks NAME#permit-i are held), shows the permits held "
                        + "(a read holds one, a write all) and who is acquiring (NAME#gate); for a read-write lock, its "
                        + "writer or how many read it. A leader elected for NAME (holdfast lead, holdfast.leader) shows as "
                        + "leader, with its term.",
                "Exits 0 whether or not the lock is held; use --json and its \"held\" field in scripts."})
final class StatusCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    StoreOptions store;
    @Option(names = "--json", description = "Print one JSON object: name, known, held, role (lock, "
            + "leader, reader or writer, as the hold's owner id marks it; null if free), holder, ownerId, fencingToken, "
            + "leaseRemainingMillis (null where there is nothing to say), and semaphore: null, or the permits held of "
            + "the semaphore NAME (permitsHeld, permits, atLeastPermits, holders, held, gate, and readWrite: null, or for a "
            + "read-write lock readers, writePermits, writers).")
    boolean json;
    @Option(names = "--permits", paramLabel = "N", description = "The permits of the semaphore NAME (a read-write lock's "
            + "readers at once), which the store does not record: says how many of N are held and free.")
    Integer permits;
    @Parameters(paramLabel = "NAME", description = "The lock name.")
    String name;

    @Override
    public Integer call() {
        try {
            LockNames.requireValid(name);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (permits != null && (permits < 1 || permits > DistributedSemaphore.MAX_PERMITS)) {
            throw new ParameterException(spec.commandLine(), "--permits " + permits + " is not allowed; allowed: 1 to "
                    + DistributedSemaphore.MAX_PERMITS);
        }
        Optional<LockInfo> info = Optional.empty();
        PermitViews.Semaphore semaphore = new PermitViews.Semaphore(name, List.of(), null);
        Optional<java.nio.file.Path> missing = store.missingSqliteFile();
        if (missing.isEmpty()) {
            try (Holdfast holdfast = store.connect()) {
                info = holdfast.admin().status(name);
                semaphore = PermitViews.lookUp(holdfast.admin(), name);
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Json.Obj obj = info.map(i -> LockViews.json(i, true))
                    .orElseGet(() -> Json.object().put("name", name).put("known", false).put("held", false)
                            .put("role", null).put("holder", null).put("ownerId", null).put("fencingToken", null)
                            .put("leaseRemainingMillis", null));
            obj.put("semaphore", semaphore.isEmpty() && permits == null ? null : PermitViews.json(semaphore, permits));
            out.println(obj);
        } else {
            boolean showSemaphore = (!semaphore.isEmpty() || permits != null) && missing.isEmpty();
            if (info.isPresent()) {
                out.print(LockViews.table(List.of(info.get())).render());
                if (info.get().held() && info.get().role() == LockInfo.Role.LEADER) {
                    out.println(LockViews.leaderLine(info.get()));
                }
            } else if (!showSemaphore) {
                out.println("lock '" + name + "' is not known to the store ("
                        + missing.map(p -> "no database file at " + p).orElse("never taken") + ")");
            }
            if (showSemaphore) {
                if (info.isPresent()) {
                    out.println();
                }
                printSemaphore(out, semaphore);
            }
        }
        out.flush();
        return ExitCodes.OK;
    }

    private void printSemaphore(PrintWriter out, PermitViews.Semaphore semaphore) {
        out.println(PermitViews.summary(semaphore, permits));
        if (!semaphore.permits().isEmpty()) {
            out.print(PermitViews.permitTable(semaphore).render());
        }
        if (semaphore.gate() != null) {
            out.println(PermitViews.gateLine(semaphore.gate()));
        }
    }
}
