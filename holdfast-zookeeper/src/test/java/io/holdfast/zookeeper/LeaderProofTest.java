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
}
