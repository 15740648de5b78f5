package io.holdfast.memcached;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a store knows about the fencing counters {@code PREFIX token: NAME}: the highest token it has seen for
 * each name (issued to it, or read from another holder's value), for the last {@value #REMEMBERED} names used.
 *
 * <p>Guarantee: a token this store issues for a name is greater than every token it has seen for that name
 * (the acquirer bumps the counter above {@link #floor} before using a token), even when the counter was lost
 * to eviction or a restart and re-created lower. Tokens issued by clients that never saw each other's tokens
 * are ordered only while the counter survives, or by the clock that seeds a new counter (see the README).
 */
final class TokenCounter {
    static final int REMEMBERED = 10_000;

    // Guarded by itself.
    private final Map<String, Long> lastTokens = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > REMEMBERED;
        }
    };

    /**
     * The value a missing counter starts from (never used, evicted, or lost in a restart): the microseconds
     * since the epoch by this machine's clock, or one above the last token seen for the name if that is higher.
     */
    long seed(String name) {
        Instant now = Instant.now();
        long micros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        long known = floor(name);
        return known == 0 ? micros : Math.max(micros, known + 1);
    }

    /** The highest token seen for {@code name}, 0 if none: a new token must exceed it. */
    long floor(String name) {
        Long known;
        synchronized (lastTokens) {
            known = lastTokens.get(name);
        }
        return known == null ? 0 : known;
    }

    /** Records a token seen for {@code name}. */
    void remember(String name, long token) {
        if (token <= 0) {
            return;
        }
        synchronized (lastTokens) {
            lastTokens.merge(name, token, Math::max);
        }
    }
}
