package io.holdfast;

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
}
