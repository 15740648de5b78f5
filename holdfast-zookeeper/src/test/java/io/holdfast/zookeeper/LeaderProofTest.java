package io.holdfast.zookeeper;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The rule behind renewal in an ensemble (review finding Z1), without a server; times in ns. */
class LeaderProofTest {
    private static final long PING = 1_000;

    @Test
    void aSyncSentAPingIntervalAfterAnAnswerProvesThatRequest() {
        LeaderProof proof = new LeaderProof(PING);
        proof.answered(7, 100, 150);
        proof.synced(7, 150 + PING - 1);
        assertThat(proof.proven(7, 100)).as("a sync less than a ping interval after the answer proves nothing").isFalse();
        proof.synced(7, 150 + PING);
        assertThat(proof.proven(7, 100)).isTrue();
        assertThat(proof.proven(7, 99)).as("an earlier instant is proven too").isTrue();
        assertThat(proof.proven(7, 101)).as("a later instant is not").isFalse();
    }

    @Test
    void theLatestProvableRequestCountsAndLaterOnesWait() {
        LeaderProof proof = new LeaderProof(PING);
        proof.answered(7, 100, 110);
        proof.answered(7, 500, 510);
        proof.answered(7, 2_000, 2_010);
        proof.synced(7, 1_600);
        assertThat(proof.proven(7, 500)).isTrue();
        assertThat(proof.proven(7, 2_000)).as("answered less than a ping interval before the sync").isFalse();
        proof.synced(7, 3_010);
        assertThat(proof.proven(7, 2_000)).isTrue();
    }

    @Test
    void nothingIsProvenForAnotherSession() {
        LeaderProof proof = new LeaderProof(PING);
        proof.answered(7, 100, 110);
        proof.synced(7, 5_000);
        assertThat(proof.proven(8, 100)).isFalse();
        proof.answered(8, 6_000, 6_010);
        assertThat(proof.proven(7, 100)).as("the old session's proof is gone with it").isFalse();
        assertThat(proof.proven(8, 6_000)).isFalse();
    }

    @Test
    void aFailedOrMissingSyncProvesNothing() {
        LeaderProof proof = new LeaderProof(PING);
        proof.answered(7, 100, 110);
        assertThat(proof.proven(7, 0)).isFalse();
    }

    @Test
    void aPlannedBackgroundSyncIsSharedOnlyByAnswersAPingIntervalBeforeIt() {
        LeaderProof proof = new LeaderProof(PING);
        long first = proof.planBackgroundSync(0);
        assertThat(first).as("a ping interval and an eighth").isEqualTo(PING + PING / 8);
        assertThat(proof.planBackgroundSync(PING / 8)).as("still a ping interval before the planned sync: shared").isEqualTo(-1);
        long next = proof.planBackgroundSync(PING / 8 + 1);
        assertThat(next).as("less than a ping interval before it: a new one").isEqualTo(PING + PING / 8);
        // whichever sync is sent, it proves only what was answered a ping interval before it
        proof.answered(7, PING / 8, PING / 8);
        proof.synced(7, first);
        assertThat(proof.proven(7, PING / 8)).isTrue();
    }
}
