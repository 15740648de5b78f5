package io.holdfast.testkit.torture;

/**
 * One line of a client's history: an operation's invocation or completion, or something that happened
 * to the client. Times are microseconds since the epoch from the wall clock of the one machine every
 * process of a run lives on, so histories of different processes share a time line.
 *
 * @param micros when, in microseconds since the epoch
 * @param client the client number (1 to N); a restarted client keeps its number
 * @param incarnation which process of that client (1, then 2 after a kill, ...)
 * @param op what: one of the {@code OP_} constants
 * @param type {@link #INVOKE}, {@link #OK}, {@link #FAIL} (certainly had no effect) or {@link #INFO}
 *        (outcome unknown: it may or may not have taken effect)
 * @param token the fencing token the operation used or got, or 0
 * @param value a number the operation read or wrote, or 0
 * @param detail free text (an error message, the loss reason), never containing tabs or line breaks
 * @param thread which thread of a client process that runs several (1 to N), or 0 in a single-threaded one;
 *        each thread is its own actor: it acquires and releases on its own
 */
record Event(long micros, int client, int incarnation, String op, String type, long token, long value, String detail, int thread) {
    /** An event of a single-threaded client process. */
    Event(long micros, int client, int incarnation, String op, String type, long token, long value, String detail) {
        this(micros, client, incarnation, op, type, token, value, detail, 0);
    }

    static final String OP_START = "start";
    static final String OP_ACQUIRE = "acquire";
    static final String OP_LOST = "lost";
    static final String OP_CLAIM = "claim";
    static final String OP_READ = "read";
    static final String OP_RELEASE = "release";
    static final String OP_STOP = "stop";
    /** A hold's own view of itself: {@link #OK} if {@code isValid()} was true at this time, {@link #FAIL} if false. */
    static final String OP_VALID = "valid";
    static final String INVOKE = "invoke";
    static final String OK = "ok";
    static final String FAIL = "fail";
    static final String INFO = "info";

    /** Now on the run's time line ({@link RunClock}): microseconds since the epoch, by the runner's wall clock and the machine's monotonic clock. */
    static long now() {
        return RunClock.now();
    }

    /** This event as one tab-separated line, without the line break (the thread column only for a thread of several). */
    String toLine() {
        return micros + "\t" + client + "\t" + incarnation + "\t" + op + "\t" + type + "\t" + token + "\t" + value + "\t"
                + clean(detail) + (thread == 0 ? "" : "\t" + thread);
    }

    /** The actor: {@code C.I} for client C's incarnation I, {@code C.I#T} for its thread T of several. */
    String actor() {
        return client + "." + incarnation + (thread == 0 ? "" : "#" + thread);
    }

    /**
     * Reads a line written by {@link #toLine()}.
     *
     * @return the event, or null if the line is incomplete or malformed (the last line of a killed client)
     */
    static Event parse(String line) {
        String[] f = line.split("\t", -1);
        if (f.length != 8 && f.length != 9) {
            return null;
        }
        try {
            return new Event(Long.parseLong(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3], f[4],
                    Long.parseLong(f[5]), Long.parseLong(f[6]), f[7], f.length == 9 ? Integer.parseInt(f[8]) : 0);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static String clean(String text) {
        if (text == null) {
            return "";
        }
        String s = text.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    boolean is(String op, String type) {
        return this.op.equals(op) && this.type.equals(type);
    }
}
