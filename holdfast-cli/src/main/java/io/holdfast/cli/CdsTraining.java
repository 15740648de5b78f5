package io.holdfast.cli;

import io.holdfast.Hold;
import io.holdfast.Holdfast;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The build's class-data-sharing training run, not a command: runs the calls that must start fast (help, {@code run},
 * {@code status}, {@code list} on a SQLite file in the directory given) in one JVM, which the build starts with
 * {@code -XX:DumpLoadedClassList} and then archives the classes it listed (holdfast-cli/pom.xml). Exits 1 if a call
 * did not end as it should, so that the build skips the archive rather than archive a broken path.
 */
final class CdsTraining {
    private CdsTraining() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: CdsTraining DIRECTORY");
            System.exit(ExitCodes.USAGE);
        }
        String uri = "sqlite:" + Path.of(args[0]).toAbsolutePath().resolve("training.db");
        List<String> failed = new ArrayList<>();
        HoldfastCli.configureJavaUtilLogging(); // as main does
        expect(failed, ExitCodes.OK, "--help");
        expect(failed, ExitCodes.OK, "--version");
        expect(failed, ExitCodes.OK, "run", "--help");
        expect(failed, ExitCodes.USAGE, "run", "--uri", uri, "--lease", "forever", "training", "--", "true");
        expect(failed, ExitCodes.OK, "init", "--uri", uri);
        expect(failed, ExitCodes.OK, "run", "--uri", uri, "training", "--", "true");
        expect(failed, ExitCodes.OK, "status", "--uri", uri, "training");
        expect(failed, ExitCodes.OK, "status", "--uri", uri, "--json", "training");
        try (Holdfast holdfast = Holdfast.connect(uri)) {
            Hold held = holdfast.lock("training").acquire();
            try {
                expect(failed, ExitCodes.NOT_ACQUIRED, "run", "--uri", uri, "training", "--", "true");
                expect(failed, ExitCodes.OK, "run", "--uri", uri, "-E", "0", "training", "--", "true");
                expect(failed, ExitCodes.OK, "list", "--uri", uri);
                expect(failed, ExitCodes.OK, "list", "--uri", uri, "--json");
            } finally {
                held.close();
            }
        }
        expect(failed, ExitCodes.OK, "release", "--force", "--uri", uri, "training");
        if (!failed.isEmpty()) {
            System.err.println("CdsTraining: unexpected exit status of " + failed);
            System.exit(ExitCodes.FAILED);
        }
    }

    private static void expect(List<String> failed, int status, String... args) {
        int actual = HoldfastCli.execute(args);
        if (actual != status) {
            failed.add("holdfast " + String.join(" ", args) + ": " + actual + ", expected " + status);
        }
    }
}
