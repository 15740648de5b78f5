package io.holdfast;

/**
 * The names every backend accepts: 1 to 200 characters from {@code A-Z a-z 0-9} and
 * {@code - _ . : / @ + = #}, neither starting nor ending with {@code /} and without {@code //}. Names are
 * case-sensitive. The same rule everywhere lets a name move between stores (a ZooKeeper path, an etcd
 * key, a Redis key, a table row).
 */
public final class LockNames {
    /** The longest name accepted. */
    public static final int MAX_LENGTH = 200;
    private static final String ALLOWED = "1 to " + MAX_LENGTH
            + " characters from A-Z a-z 0-9 and - _ . : / @ + = #, not starting or ending with '/' and without '//'";

    private LockNames() {
    }

    /**
     * Returns {@code name} if valid.
     *
     * @throws IllegalArgumentException saying what is allowed, if not
     */
    public static String requireValid(String name) {
        if (name == null) {
            throw new IllegalArgumentException("lock name is null; allowed: " + ALLOWED);
        }
        String problem = problem(name);
        if (problem != null) {
            throw new IllegalArgumentException("lock name '" + printable(name) + "' " + problem + "; allowed: " + ALLOWED);
        }
        return name;
    }

    private static String problem(String name) {
        if (name.isEmpty()) {
            return "is empty";
        }
        if (name.length() > MAX_LENGTH) {
            return "is " + name.length() + " characters long";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "-_.:/@+=#".indexOf(c) >= 0;
            if (!ok) {
                return "has '" + printable(String.valueOf(c)) + "' at position " + i;
            }
        }
        if (name.startsWith("/") || name.endsWith("/") || name.contains("//")) {
            return "has an empty path segment";
        }
        return null;
    }

    private static String printable(String s) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length() && i < 80; i++) {
            char c = s.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return s.length() > 80 ? out + "..." : out.toString();
    }
}
