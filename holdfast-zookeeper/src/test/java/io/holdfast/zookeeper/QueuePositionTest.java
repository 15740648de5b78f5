package io.holdfast.zookeeper;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The recipe's decision on a listing, without a server (review findings Z4/Z7 among them). */
class QueuePositionTest {
    private static String node(String owner, long seq) {
        return LockNodes.nodePrefix(owner) + String.format("%010d", seq);
    }

    @Test
    void theLowestNodeHolds() {
        QueuePosition p = QueuePosition.of(List.of(node("b", 9), node("a", 7), "sub"), node("a", 7));
        assertThat(p).isEqualTo(new QueuePosition(QueuePosition.State.HELD, null, List.of()));
    }

    @Test
    void aWaiterWatchesTheNextLowerNodeNotTheHead() {
        QueuePosition p = QueuePosition.of(List.of(node("c", 12), node("a", 3), node("b", 8)), node("c", 12));
        assertThat(p.state()).isEqualTo(QueuePosition.State.WAITING);
        assertThat(p.predecessor()).isEqualTo(node("b", 8));
    }

    @Test
    void aNodeMissingFromTheListingIsGone() {
        QueuePosition p = QueuePosition.of(List.of(node("b", 8)), node("a", 9));
        assertThat(p.state()).isEqualTo(QueuePosition.State.GONE);
    }

    /** Z4: an orphan of this owner (a lost create's node) is below its node: the owner holds, and the orphan is to be deleted. */
    @Test
    void anOwnerNeverWaitsBehindItsOwnOrphan() {
        QueuePosition p = QueuePosition.of(List.of(node("o", 5), node("o", 6), node("x", 7)), node("o", 6));
        assertThat(p).isEqualTo(new QueuePosition(QueuePosition.State.HELD, null, List.of(node("o", 5))));
    }

    @Test
    void anOrphanBetweenTheOwnerAndItsRealPredecessorIsSkipped() {
        QueuePosition p = QueuePosition.of(List.of(node("x", 4), node("o", 5), node("o", 6), node("o", 9)), node("o", 6));
        assertThat(p).isEqualTo(new QueuePosition(QueuePosition.State.WAITING, node("x", 4), List.of(node("o", 5), node("o", 9))));
    }

    @Test
    void anOwnerWhoseIdIsAPrefixOfAnothersIsNotConfusedWithIt() {
        QueuePosition p = QueuePosition.of(List.of(node("o", 5), node("o2", 4)), node("o", 5));
        assertThat(p).isEqualTo(new QueuePosition(QueuePosition.State.WAITING, node("o2", 4), List.of()));
    }

    @Test
    void duplicatesAreReportedEvenWhenTheNodeIsGone() {
        QueuePosition p = QueuePosition.of(List.of(node("o", 5)), node("o", 6));
        assertThat(p).isEqualTo(new QueuePosition(QueuePosition.State.GONE, null, List.of(node("o", 5))));
    }
}
