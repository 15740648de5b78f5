package io.holdfast.cli;

import io.holdfast.HoldfastException;
import io.holdfast.StoreConfigurationException;
import io.holdfast.StoreUnavailableException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code holdfast} command: distributed locks for shell scripts and operators. {@link #main} runs
 * it and exits with the status {@link ExitCodes} documents.
 */
@Command(name = "holdfast",
        mixinStandardHelpOptions = true, scope = CommandLine.ScopeType.INHERIT,
        versionProvider = HoldfastCli.Version.class,
        description = "Distributed locks for shell scripts and operators: run a command while holding a lock or while "
                + "elected leader, inspect and release locks, and watch the flash-sale demo.",
        footerHeading = "%nExit status:%n",
        footer = {"  0    success (run, lead: COMMAND's own status)",
                "  64   usage error: unknown option, bad duration, bad lock name, missing command",
                "  64   also: a URI with an unknown parameter, a missing host or a bad port",
                "  69   the lock store is unreachable (or, for SQLite, the file cannot be opened)",
                "  70   internal error",
                "  75   run: the lock was not acquired within --wait (-E N chooses another status)",
                "  76   run, lead: the hold or leadership was lost while COMMAND ran; COMMAND was terminated",
                "  78   the store refused the configuration: no such database or role, wrong password",
                "  127  run, lead: COMMAND could not be started",
                "  128+N  run, lead: holdfast got signal N while waiting for the lock or to be elected",
                "",
                "Environment: HOLDFAST_URI is the store used when --uri is not given (default sqlite:, "
                        + "a file under ~/.holdfast)."})
public final class HoldfastCli implements Runnable {
    @Spec
    CommandSpec spec;

    private HoldfastCli() {
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command; one of: run, lead, status, list, release, init, demo, torture");
    }

    /** Runs the command line and exits the JVM with its status. */
    public static void main(String[] args) {
        configureJavaUtilLogging();
        System.exit(execute(args));
    }

    /**
     * Has java.util.logging configured by {@link QuietJavaUtilLogging} when a library first uses it (unless the user
     * configured it with {@code -Djava.util.logging.config.file} or {@code .class}): a call on SQLite never starts it.
     */
    static void configureJavaUtilLogging() {
        if (System.getProperty("java.util.logging.config.class") == null
                && System.getProperty("java.util.logging.config.file") == null) {
            System.setProperty("java.util.logging.config.class", QuietJavaUtilLogging.class.getName());
        }
    }

    /**
     * The subcommands by name, in the order {@code --help} lists them. picocli reflects over every registered command
     * when the command line is built, so a call registers only the one it names (see {@link #commandFor}).
     */
    static final Map<String, Class<?>> SUBCOMMANDS = subcommands();

    private static Map<String, Class<?>> subcommands() {
        Map<String, Class<?>> commands = new LinkedHashMap<>();
        commands.put("run", RunCommand.class);
        commands.put("lead", LeadCommand.class);
        commands.put("status", StatusCommand.class);
        commands.put("list", ListCommand.class);
        commands.put("release", ReleaseCommand.class);
        commands.put("init", InitCommand.class);
        commands.put("demo", DemoCommand.class);
        commands.put("demo-worker", DemoWorker.class);
        commands.put("torture", TortureCommand.class);
        commands.put("help", CommandLine.HelpCommand.class);
        return Collections.unmodifiableMap(commands);
    }

    /** Runs the command line and returns its exit status (without exiting). */
    static int execute(String... args) {
        return commandFor(args).execute(args);
    }

    /**
     * The command line for {@code args}: with only the subcommand {@code args[0]} names, none for a lone
     * {@code --version}, and all of them otherwise (top-level help, {@code help COMMAND}, and an unknown command,
     * which gets suggestions).
     */
    static CommandLine commandFor(String... args) {
        String first = args.length == 0 ? "" : args[0];
        if (args.length == 1 && (first.equals("--version") || first.equals("-V"))) {
            return commandLine(List.of());
        }
        Class<?> named = SUBCOMMANDS.get(first);
        return named == null || named == CommandLine.HelpCommand.class ? commandLine() : commandLine(List.of(named));
    }

    private static final String PICOCLI_EXCLUDES = "picocli.converters.excludes";

    /** The command line with every subcommand. */
    static CommandLine commandLine() {
        return commandLine(SUBCOMMANDS.values());
    }

    private static CommandLine commandLine(Collection<Class<?>> subcommands) {
        // picocli registers its converters for java.time and java.sql types through reflection with every command line,
        // which loads and initialises some sixty JDK classes per call. Every option of ours with such a type names its
        // converter (DurationConverter); an option without one would be refused as having no converter.
        if (System.getProperty(PICOCLI_EXCLUDES) == null) {
            System.setProperty(PICOCLI_EXCLUDES, "java\\.time\\..*,java\\.sql\\..*");
        }
        CommandLine cl = new CommandLine(new HoldfastCli());
        for (Class<?> subcommand : subcommands) {
            cl.addSubcommand(subcommand);
        }
        ErrorHandler handler = new ErrorHandler();
        cl.setParameterExceptionHandler(handler);
        cl.setExecutionExceptionHandler(handler);
        return cl;
    }

    /**
     * Turns usage errors and exceptions into a message and an exit status. A class rather than lambdas: a lambda
     * implementing one of picocli's (Java 5) interfaces keeps picocli out of the class-data-sharing archive, because
     * the JVM regenerates the lambda while it writes the archive and so links picocli's classes, which it then skips.
     */
    private static final class ErrorHandler implements CommandLine.IParameterExceptionHandler,
            CommandLine.IExecutionExceptionHandler {
        @Override
        public int handleParseException(ParameterException e, String[] args) {
            CommandLine cl = e.getCommandLine();
            PrintWriter err = cl.getErr();
            err.println("holdfast: " + e.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
            err.println("Try '" + cl.getCommandSpec().qualifiedName() + " --help' for more information.");
            err.flush();
            return ExitCodes.USAGE;
        }

        @Override
        public int handleExecutionException(Exception e, CommandLine commandLine, CommandLine.ParseResult parseResult) {
            return failure(e, commandLine.getErr());
        }
    }

    /** Maps an exception that escaped a command to a message and an exit status. */
    static int failure(Exception e, PrintWriter err) {
        int status;
        if (e instanceof StoreUnavailableException) {
            err.println("holdfast: " + e.getMessage());
            status = ExitCodes.STORE_UNAVAILABLE;
        } else if (e instanceof StoreConfigurationException) {
            err.println("holdfast: " + e.getMessage());
            status = ExitCodes.CONFIG;
        } else if (e instanceof IllegalArgumentException) {
            // Bad names, durations and URIs, found by the core or a backend; the message says what is allowed.
            err.println("holdfast: " + e.getMessage());
            status = ExitCodes.USAGE;
        } else if (e instanceof HoldfastException) {
            err.println("holdfast: " + e.getMessage());
            status = ExitCodes.INTERNAL;
        } else {
            err.println("holdfast: internal error: " + e);
            e.printStackTrace(err);
            status = ExitCodes.INTERNAL;
        }
        err.flush();
        return status;
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = HoldfastCli.class.getPackage().getImplementationVersion();
            return new String[] {"holdfast " + (v == null ? "(development build)" : v),
                    "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
        }
    }
}
