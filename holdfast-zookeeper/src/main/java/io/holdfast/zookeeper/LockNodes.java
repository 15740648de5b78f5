package io.holdfast.zookeeper;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How locks map to znodes. The lock {@code orders/42} is the directory {@code BASE/orders/42} (a
 * container node, which the server deletes once it is empty); each acquisition is an
 * ephemeral-sequential child {@code ~OWNER~0000000007} of it, where OWNER is the percent-encoded owner
 * id and the ten digits are the sequence number ZooKeeper appends. The lowest sequence number holds the
 * lock; the others queue behind it in order. Lock names never contain {@code ~}, so a sub-directory
 * (the lock {@code orders/42/x}) is never mistaken for a queue entry.
 *
 * <p>A node's data is {@code holder=...}, {@code lease=MS} and {@code session=MS} lines: who holds it,
 * for operators, and how long it can outlive a silent holder.
 */
final class LockNodes {
    static final char MARK = '~';
    private static final int SEQUENCE_DIGITS = 10;
    private static final String SAFE = "-_.:@+=#";

    private LockNodes() {
    }

    /** The directory of lock {@code name} under {@code base}; a segment of dots only is escaped, as ZooKeeper refuses . and .. */
    static String dir(String base, String name) {
        StringBuilder path = new StringBuilder(base);
        for (String segment : name.split("/", -1)) {
            path.append('/').append(segment.chars().allMatch(c -> c == '.') ? segment.replace(".", "%2E") : segment);
        }
        return path.toString();
    }

    /** The lock name of a directory path below {@code base}. */
    static String name(String base, String dir) {
        return dir.substring(base.length() + 1).replace("%2E", ".");
    }

    /** The name prefix of a new queue node for {@code ownerId}; ZooKeeper appends the sequence number. */
    static String nodePrefix(String ownerId) {
        return MARK + encode(ownerId) + MARK;
    }

    /** Whether a child of a lock directory is a queue node (and not the directory of a longer lock name). */
    static boolean isQueueNode(String child) {
        return child.length() > SEQUENCE_DIGITS + 2 && child.charAt(0) == MARK
                && child.charAt(child.length() - SEQUENCE_DIGITS - 1) == MARK;
    }

    /** The owner id a queue node stands for. */
    static String owner(String node) {
        return decode(node.substring(1, node.length() - SEQUENCE_DIGITS - 1));
    }

    /** The sequence number ZooKeeper gave a queue node. */
    static long sequence(String node) {
        return Long.parseLong(node.substring(node.length() - SEQUENCE_DIGITS));
    }

    /** The queue nodes among a directory's children, lowest sequence (the holder) first. */
    static List<String> queue(List<String> children) {
        List<String> queue = new ArrayList<>(children.size());
        for (String c : children) {
            if (isQueueNode(c)) {
                queue.add(c);
            }
        }
        queue.sort(Comparator.comparingLong(LockNodes::sequence));
        return queue;
    }

    /** The sub-directories (longer lock names) among a directory's children. */
    static List<String> subdirectories(List<String> children) {
        List<String> dirs = new ArrayList<>();
        for (String c : children) {
            if (c.isEmpty() || c.charAt(0) != MARK) {
                dirs.add(c);
            }
        }
        return dirs;
    }

    static byte[] data(String holder, long leaseMs, long sessionMs) {
        return ("holder=" + holder.replace('\n', ' ') + "\nlease=" + leaseMs + "\nsession=" + sessionMs + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** A field of a node's data, or null. */
    static String field(byte[] data, String key) {
        if (data == null) {
            return null;
        }
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith(key + "=")) {
                return line.substring(key.length() + 1);
            }
        }
        return null;
    }

    static long longField(byte[] data, String key, long otherwise) {
        String v = field(data, key);
        try {
            return v == null ? otherwise : Long.parseLong(v);
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    /** Percent-encodes every byte that is not a letter, digit or one of {@code - _ . : @ + = #}. */
    static String encode(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || SAFE.indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return out.toString();
    }

    static String decode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length()) {
                out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                out.write(c);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
