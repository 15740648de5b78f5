package io.holdfast.testkit.torture.net;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A partition a {@link Network} put in place: the members on each side, and whether only the traffic
 * from {@code sideA} to {@code sideB} is dropped.
 */
public record Partition(List<Network.Member> sideA, List<Network.Member> sideB, boolean oneWay) {
    /** Both sides by member name, such as {@code c2,s1 | c1,c3,s2,s3} ({@code ->} for one way). */
    public String sides() {
        return names(sideA) + (oneWay ? " -> " : " | ") + names(sideB);
    }

    private static String names(List<Network.Member> side) {
        return side.stream().map(Network.Member::name).sorted().collect(Collectors.joining(","));
    }
}
