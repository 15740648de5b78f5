package io.holdfast;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and checks durations. Text forms: a whole number with a unit, {@code 500ms}, {@code 10s},
 * {@code 5m}, {@code 2h}, {@code 1d}, or ISO-8601 such as {@code PT10S}; a bare {@code 0} is zero.
 */
public final class Durations {
    /** The shortest lease accepted. */
    public static final Duration MIN_LEASE = Duration.ofMillis(100);
    /** The longest lease accepted. */
    public static final Duration MAX_LEASE = Duration.ofDays(7);
    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");
    private static final String FORMS = "a whole number with a unit ms, s, m, h or d (500ms, 10s, 5m) or ISO-8601 (PT10S)";

    private Durations() {
    }

    /**
     * Parses a duration.
     *
     * @throws IllegalArgumentException naming the accepted forms, if the text is not one of them or is negative
     */
    public static Duration parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("duration is empty; expected " + FORMS);
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("0")) {
            return Duration.ZERO; // zero needs no unit
        }
        if (t.startsWith("-") && SIMPLE.matcher(t.substring(1)).matches()) {
            throw new IllegalArgumentException("duration '" + text + "' is negative; expected " + FORMS);
        }
        Matcher m = SIMPLE.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            switch (m.group(2)) {
                case "ms": return Duration.ofMillis(n);
                case "s": return Duration.ofSeconds(n);
                case "m": return Duration.ofMinutes(n);
                case "h": return Duration.ofHours(n);
                default: return Duration.ofDays(n);
            }
        }
        try {
            Duration d = Duration.parse(text.trim().toUpperCase(Locale.ROOT));
            if (d.isNegative()) {
                throw new IllegalArgumentException("duration '" + text + "' is negative; expected " + FORMS);
            }
            return d;
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("duration '" + text + "' is not understood; expected " + FORMS, e);
        }
    }

    /**
     * Formats a duration the way {@link #parse} reads it, in the largest exact unit (milliseconds are the
     * smallest; durations too long to count in milliseconds are counted in seconds). Never throws.
     */
    public static String format(Duration d) {
        long seconds = d.getSeconds();
        if (seconds >= Long.MAX_VALUE / 1000 || seconds <= Long.MIN_VALUE / 1000) {
            if (seconds % 86_400 == 0) return seconds / 86_400 + "d";
            if (seconds % 3_600 == 0) return seconds / 3_600 + "h";
            if (seconds % 60 == 0) return seconds / 60 + "m";
            return seconds + "s";
        }
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0 && ms != 0) return ms / 86_400_000 + "d";
        if (ms % 3_600_000 == 0 && ms != 0) return ms / 3_600_000 + "h";
        if (ms % 60_000 == 0 && ms != 0) return ms / 60_000 + "m";
        if (ms % 1000 == 0 && ms != 0) return ms / 1000 + "s";
        return ms + "ms";
    }

    /**
     * Returns {@code lease} if it lies within [{@link #MIN_LEASE}, {@link #MAX_LEASE}].
     *
     * @throws IllegalArgumentException saying the allowed range, if not
     */
    public static Duration requireLease(Duration lease) {
        String allowed = format(MIN_LEASE) + " to " + format(MAX_LEASE);
        if (lease == null) {
            throw new IllegalArgumentException("lease is null; allowed: " + allowed);
        }
        if (lease.compareTo(MIN_LEASE) < 0) {
            throw new IllegalArgumentException("lease " + format(lease) + " is too short; it must be at least " + format(MIN_LEASE)
                    + " (allowed: " + allowed + ")");
        }
        if (lease.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException("lease " + format(lease) + " is too long; it must be at most " + format(MAX_LEASE)
                    + " (allowed: " + allowed + ")");
        }
        return lease;
    }

    /**
     * Returns {@code wait} if it is zero or positive.
     *
     * @throws IllegalArgumentException if it is null or negative
     */
    public static Duration requireWait(Duration wait) {
        if (wait == null) {
            throw new IllegalArgumentException("wait is null; allowed: zero or a positive duration");
        }
        if (wait.isNegative()) {
            throw new IllegalArgumentException("wait " + format(wait) + " is not allowed; allowed: zero or a positive duration");
        }
        return wait;
    }
}
