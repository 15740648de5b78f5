package io.holdfast;

import java.util.Collection;
import java.util.Locale;

/** URI helpers shared by backends. */
public final class Uris {
    private Uris() {
    }

    /** The URI with any password (user-info secret or {@code password=} parameter) replaced by {@code ***}. */
    public static String redact(String uri) {
        if (uri == null) {
            return "null";
        }
        String s = uri.replaceAll("(?i)(password=)[^&;]*", "$1***");
        // user:password@host: the password runs from the first ':' after "//" to the last '@' before the query,
        // so a password holding '@' or '/' is hidden whole.
        int start = s.indexOf("//");
        if (start < 0) {
            return s;
        }
        int query = s.indexOf('?', start);
        int end = query < 0 ? s.length() : query;
        int at = s.lastIndexOf('@', end - 1);
        int colon = s.indexOf(':', start + 2);
        if (at <= start || colon < 0 || colon > at || s.substring(start + 2, colon).contains("/")) {
            return s;
        }
        return s.substring(0, colon + 1) + "***" + s.substring(at);
    }

    /**
     * The name in {@code known} that {@code key} most likely misspells: the same name in another case, or one
     * at most two edits away (a letter missing, extra, changed or two swapped); null if none. Backends use it
     * to say "did you mean" when they refuse an unknown URI parameter.
     */
    public static String nearMiss(String key, Collection<String> known) {
        String k = key.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String name : known) {
            int d = distance(k, name.toLowerCase(Locale.ROOT));
            int limit = name.length() <= 3 ? 0 : name.length() <= 5 ? 1 : 2;
            if (d <= limit && d < bestDistance) {
                best = name;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
    private static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
