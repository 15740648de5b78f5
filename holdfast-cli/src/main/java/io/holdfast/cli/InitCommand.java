package io.holdfast.cli;

import io.holdfast.Holdfast;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code holdfast init}: connects once, which creates the lock table if it is missing. */
@Command(name = "init", description = "Connects to the store, creating the lock table if it is missing, and says so. "
        + "Optional: every command does the same on first use.")
final class InitCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    StoreOptions store;

    @Override
    public Integer call() {
        try (Holdfast holdfast = store.connect()) {
            spec.commandLine().getOut().println("ready: " + holdfast.describe() + " (the lock table exists)");
        }
        spec.commandLine().getOut().flush();
        return ExitCodes.OK;
    }
}
