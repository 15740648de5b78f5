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
        return s.replaceAll("(//[^/@:]*:)[^@/]*@", "$1***@");
    }
}
