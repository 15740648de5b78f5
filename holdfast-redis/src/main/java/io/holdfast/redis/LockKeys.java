package io.holdfast.redis;

/**
 * Key and channel names of a lock. Every one carries the name as a Cluster hash tag ({@code {name}}; lock
 * names cannot contain braces), so all of a lock's keys and its wake channels live on one slot.
 */
final class LockKeys {
    private static final String WAKE = ":wake:";
    final String prefix;

    LockKeys(String prefix) {
        this.prefix = prefix;
    }

    String base(String name) {
        return prefix + "{" + name + "}";
    }

    /** KEYS of the acquire script: lock, token, queue. */
    String[] forAcquire(String name) {
        String b = base(name);
        return new String[] {b, b + ":token", b + ":queue"};
    }

    /** KEYS of the release script: lock, queue. */
    String[] forRelease(String name) {
        String b = base(name);
        return new String[] {b, b + ":queue"};
    }

    /** KEYS of the inspect script: lock, token. */
    String[] forInspect(String name) {
        String b = base(name);
        return new String[] {b, b + ":token"};
    }

    String wakePrefix(String name) {
        return base(name) + WAKE;
    }

    String wakeChannel(String name, String clientId) {
        return wakePrefix(name) + clientId;
    }

    /** The lock name in a wake channel of this prefix, or null. */
    String nameOfWakeChannel(String channel) {
        int wake = channel.lastIndexOf("}" + WAKE);
        if (!channel.startsWith(prefix + "{") || wake < 0) {
            return null;
        }
        return channel.substring(prefix.length() + 1, wake);
    }

    /** SCAN pattern for the lock keys of names starting with {@code namePrefix} (names hold no glob characters). */
    String scanPattern(String namePrefix) {
        return prefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1") + "{" + namePrefix + "*}";
    }

    /** The lock name of a lock key, or null if the key is not one. */
    String nameOfLockKey(String key) {
        if (!key.startsWith(prefix + "{") || !key.endsWith("}")) {
            return null;
        }
        return key.substring(prefix.length() + 1, key.length() - 1);
    }
}
