package io.holdfast.zookeeper;

import java.util.ArrayList;
import java.util.List;

/** A resource that refuses a write whose fencing token is lower than the highest it has accepted. */
final class FencedResource {
    private long highest;
    private final List<Long> accepted = new ArrayList<>();

    synchronized boolean write(long token) {
        if (token < highest) {
            return false;
        }
        highest = token;
        accepted.add(token);
        return true;
    }

    synchronized List<Long> accepted() {
        return List.copyOf(accepted);
    }
}
