package io.holdfast.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Who is inside a semaphore, as its holders tell it under one local lock: permits and holders at once (the most of
 * each), and the tokens in the order the holders came in. Tokens cannot be asked to rise strictly in that order, as
 * two holders inside together may come in out of their order at the gate (a thread can pause between its acquire's
 * return and its entry); what must hold is that an acquire begun after a holder came in gets a greater token, and
 * that is checked for every entry.
 */
final class Occupancy {
    private final Object lock = new Object();
    private int permits;
    private int holders;
    private int mostPermits;
    private int mostHolders;
    private long highestEntered;
    private final List<Long> tokens = new ArrayList<>();
    private final List<String> broken = new ArrayList<>();

    /** To call just before an acquire: the greatest token of the holders that came in before it began. */
    long floor() {
        synchronized (lock) {
            return highestEntered;
        }
    }

    /** A holder of {@code k} permits with {@code token} comes in; {@code floor} is what {@link #floor()} said before its acquire. */
    void enter(int k, long token, long floor) {
        synchronized (lock) {
            permits += k;
            holders++;
            mostPermits = Math.max(mostPermits, permits);
            mostHolders = Math.max(mostHolders, holders);
            tokens.add(token);
            if (token <= floor) {
                broken.add("token " + token + " for an acquire begun after token " + floor + " came in");
            }
            highestEntered = Math.max(highestEntered, token);
        }
    }

    /** Stays up to {@code millis} until another holder is inside, so that a semaphore that lets in one at a time shows. */
    void lingerForCompany(long millis) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() - until < 0) {
            synchronized (lock) {
                if (holders > 1) {
                    return;
                }
            }
            Thread.sleep(1);
        }
    }

    void leave(int k) {
        synchronized (lock) {
            permits -= k;
            holders--;
        }
    }

    int mostPermits() {
        synchronized (lock) {
            return mostPermits;
        }
    }

    int mostHolders() {
        synchronized (lock) {
            return mostHolders;
        }
    }

    /** Tokens in the order their holders came in. */
    List<Long> tokens() {
        synchronized (lock) {
            return List.copyOf(tokens);
        }
    }

    /** Each entry whose token was not greater than that of a holder that came in before its acquire began. */
    List<String> broken() {
        synchronized (lock) {
            return List.copyOf(broken);
        }
    }
}
