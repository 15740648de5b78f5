package io.holdfast.memcached;

import net.rubyeye.xmemcached.MemcachedSessionLocator;
import net.rubyeye.xmemcached.impl.KetamaMemcachedSessionLocator;

import com.google.code.yanf4j.core.Session;

import java.util.Collection;

/**
 * The two keys of a lock name, {@code PREFIX lock: NAME} (the lock, with an expiry) and
 * {@code PREFIX token: NAME} (its fencing counter, without one), and where they live: both on the server
 * that Ketama consistent hashing picks for the name itself, so that one connection carries, in order, the
 * {@code add} of the lock and the {@code incr} of its counter.
 */
final class LockKeys {
    private static final String LOCK = "lock:";
    private static final String TOKEN = "token:";

    final String prefix;
    final String lockPrefix;
    private final String tokenPrefix;

    LockKeys(String prefix) {
        this.prefix = prefix;
        this.lockPrefix = prefix + LOCK;
        this.tokenPrefix = prefix + TOKEN;
    }

    String lock(String name) {
        return lockPrefix + name;
    }

    String token(String name) {
        return tokenPrefix + name;
    }

    /** The lock name of a lock key, or null if {@code key} is not one. */
    String nameOfLock(String key) {
        return key.startsWith(lockPrefix) && key.length() > lockPrefix.length() ? key.substring(lockPrefix.length()) : null;
    }

    /** What decides a key's server: the lock name for this backend's keys, the whole key otherwise. */
    String hashPart(String key) {
        if (key.startsWith(lockPrefix)) {
            return key.substring(lockPrefix.length());
        }
        if (key.startsWith(tokenPrefix)) {
            return key.substring(tokenPrefix.length());
        }
        return key;
    }

    /**
     * Ketama consistent hashing of {@link #hashPart}. In failure mode (which the store always sets) a key
     * whose server is down fails instead of moving to another server, so a lock never has two homes.
     */
    MemcachedSessionLocator locator() {
        KetamaMemcachedSessionLocator ketama = new KetamaMemcachedSessionLocator();
        return new MemcachedSessionLocator() {
            @Override
            public Session getSessionByKey(String key) {
                return ketama.getSessionByKey(hashPart(key));
            }

            @Override
            public void updateSessions(Collection<Session> list) {
                ketama.updateSessions(list);
            }

            @Override
            public void setFailureMode(boolean failureMode) {
                ketama.setFailureMode(failureMode);
            }
        };
    }
}
