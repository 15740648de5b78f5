package io.holdfast.cli;

/**
 * Exit statuses of the {@code holdfast} command. {@code holdfast run} exits with its command's status
 * unless one of these applies; they follow {@code sysexits.h} where one fits.
 */
public final class ExitCodes {
    /** Success. */
    public static final int OK = 0;
    /** A command failed in a way no other code describes (for example: the demo saw the lock fail). */
    public static final int FAILED = 1;
    /** Usage error: unknown option, bad duration, bad lock name, missing command (EX_USAGE). */
    public static final int USAGE = 64;
    /** The store could not be reached (EX_UNAVAILABLE). */
    public static final int STORE_UNAVAILABLE = 69;
    /**
     * The store refused the configuration: a database or role that does not exist, a wrong password, a missing
     * privilege (EX_CONFIG). Retrying with the same URI fails the same way.
     */
    public static final int CONFIG = 78;
    /** An unexpected internal error (EX_SOFTWARE). */
    public static final int INTERNAL = 70;
    /**
     * {@code run}: the lock was not acquired within {@code --wait} (EX_TEMPFAIL: try again later); {@code run -E N}
     * exits N instead.
     */
    public static final int NOT_ACQUIRED = 75;
    /** {@code run}, {@code lead}: the hold (or leadership) was lost while the command ran; the command was terminated. */
    public static final int HOLD_LOST = 76;
    /** {@code run}, {@code lead}: the command could not be started (not found or not executable), as in the shell. */
    public static final int CANNOT_START = 127;

    private ExitCodes() {
    }
}
