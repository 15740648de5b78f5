package io.holdfast.redis;

/**
 * Redlock's one rule for counting the answers of N masters, used by every call. A question (is this owner
 * renewed, released, granted?) is answered YES by a majority of yes; NO once so many masters said no that a
 * majority of yes is impossible even if every master that failed had said yes; UNKNOWN otherwise: the
 * masters that did not answer decide, so the caller must neither count it done nor report it lost.
 */
final class Quorum {
    enum Verdict { YES, NO, UNKNOWN }

    final int masters;
    final int majority;

    Quorum(int masters) {
        this.masters = masters;
        this.majority = masters / 2 + 1;
    }

    Verdict of(long yes, long failed) {
        if (yes >= majority) {
            return Verdict.YES;
        }
        return yes + failed >= majority ? Verdict.UNKNOWN : Verdict.NO;
    }

    /** Whether enough masters answered for any verdict but UNKNOWN to be possible. */
    boolean enoughAnswered(long failed) {
        return masters - failed >= majority;
    }
}
