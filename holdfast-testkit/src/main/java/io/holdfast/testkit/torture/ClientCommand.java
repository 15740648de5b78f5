package io.holdfast.testkit.torture;

import io.holdfast.Durations;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a client process ({@link TortureClient}) of one run: this JVM's {@code java} and
 * class path, small quick-starting JVM options, the run's arguments, the run's clock origin
 * ({@link RunClock}), and for a client whose clock the settings skew, libfaketime in front
 * ({@link ClockSkew}).
 */
final class ClientCommand {
    private final TortureSettings settings;
    private final String registerUrl;
    private final String runId;
    private final Path historyDir;

    /** @throws IllegalStateException if the settings skew a client's clock and libfaketime is missing */
    ClientCommand(TortureSettings settings, String registerUrl, String runId, Path historyDir) {
        if (!settings.clockSkews().isEmpty() && ClockSkew.whyUnavailable() != null) {
            throw new IllegalStateException("cannot skew the clocks of clients " + settings.clockSkews().keySet() + ": " + ClockSkew.whyUnavailable());
        }
        this.settings = settings;
        this.registerUrl = registerUrl;
        this.runId = runId;
        this.historyDir = historyDir;
    }

    /** The command that starts incarnation {@code incarnation} of client {@code client}, talking to {@code uri}. */
    List<String> of(int client, int incarnation, String uri) {
        List<String> cmd = new ArrayList<>();
        Duration skew = settings.clockSkews().get(client);
        if (skew != null) {
            cmd.addAll(ClockSkew.prefix(skew));
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Small, quick-starting JVMs: several run on what may be a small machine.
        cmd.addAll(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx128m", "-XX:-UsePerfData",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.showDateTime=true"));
        cmd.addAll(settings.clientJvmOptions());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), TortureClient.class.getName(),
                "--uri", uri,
                "--register", registerUrl,
                "--run", runId,
                "--lock", "torture/" + runId,
                "--client", Integer.toString(client),
                "--incarnation", Integer.toString(incarnation),
                "--history", History.fileOf(historyDir, client, incarnation).toString(),
                "--lease", Durations.format(settings.lease()),
                "--think", Durations.format(settings.think()),
                "--wait", Durations.format(settings.acquireWait()),
                "--seed", Long.toString(settings.seed()),
                "--max-lifetime", Durations.format(settings.duration().multipliedBy(3).plus(Duration.ofMinutes(5))),
                "--threads", Integer.toString(settings.threadsOf(client)),
                "--permits", Integer.toString(settings.permits()),
                "--recipe", settings.recipe().name(),
                "--clock-origin", RunClock.origin()));
        return cmd;
    }
}
