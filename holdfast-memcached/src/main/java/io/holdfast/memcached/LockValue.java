package io.holdfast.memcached;

import java.nio.charset.StandardCharsets;

/**
 * What a lock key holds: {@code 1|TOKEN|LEASE_MS|OWNER_ID|HOLDER}. The token is 0 while an acquisition is
 * between its {@code add} and the {@code cas} that writes the token in. Owner ids never contain {@code |};
 * the holder comes last, so it may.
 *
 * @param token the hold's fencing token, 0 if not written yet
 * @param leaseMillis the lease the holder asked for
 * @param ownerId the acquisition's owner id
 * @param holder who holds it, for operators
 */
record LockValue(long token, long leaseMillis, String ownerId, String holder) {
    private static final String VERSION = "1";
    /** Stands for a value this backend did not write (another program uses the key). */
    static final String UNREADABLE = "(not a Holdfast lock value)";

    LockValue withToken(long newToken) {
        return new LockValue(newToken, leaseMillis, ownerId, holder);
    }

    boolean ownedBy(String owner) {
        return ownerId.equals(owner);
    }

    String encode() {
        return VERSION + "|" + token + "|" + leaseMillis + "|" + ownerId + "|" + holder;
    }

    /** Reads a value; one this backend did not write reads as held by an unknown owner. */
    static LockValue decode(byte[] data) {
        String text = new String(data, StandardCharsets.UTF_8);
        String[] parts = text.split("\\|", 5);
        if (parts.length == 5 && parts[0].equals(VERSION)) {
            try {
                return new LockValue(Long.parseLong(parts[1]), Long.parseLong(parts[2]), parts[3], parts[4]);
            } catch (NumberFormatException e) {
                // falls through
            }
        }
        return new LockValue(0, 0, UNREADABLE, UNREADABLE);
    }
}
