package io.holdfast;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * This client's waiters for one lock name, in arrival order. Only the head polls the store and only
 * the head is woken by a release, so a hand-off costs this process one attempt however many of its
 * threads wait.
 */
final class WaitQueue {
    final String name;
    private final HoldfastClient client;
    // Guarded by this.
    private final ArrayDeque<Acquisition> waiters = new ArrayDeque<>();
    private boolean retired;

    WaitQueue(HoldfastClient client, String name) {
        this.client = client;
        this.name = name;
    }

    /**
     * Adds a waiter at the tail.
     *
     * @return false if this queue was retired (emptied and dropped) meanwhile; join the current one then
     */
    boolean enqueue(Acquisition acquisition, boolean attemptNow) {
        boolean isHead;
        synchronized (this) {
            if (retired) {
                return false;
            }
            waiters.addLast(acquisition);
            isHead = waiters.peekFirst() == acquisition;
        }
        if (isHead) {
            acquisition.becameHead(attemptNow);
        }
        return true;
    }

    void wakeHead() {
        Acquisition head;
        synchronized (this) {
            head = waiters.peekFirst();
        }
        if (head != null) {
            head.wake();
        }
    }

    /**
     * Removes a waiter. The next head polls at once if the leaver gave up (the lock may be free), and
     * waits for a signal or its first poll if the leaver took the lock.
     */
    void leave(Acquisition acquisition, boolean acquired) {
        Acquisition next = null;
        synchronized (this) {
            boolean wasHead = waiters.peekFirst() == acquisition;
            if (!waiters.remove(acquisition)) {
                return;
            }
            if (waiters.isEmpty()) {
                retired = true;
                client.dropQueueIfIdle(this);
            } else if (wasHead) {
                next = waiters.peekFirst();
            }
        }
        if (next != null) {
            next.becameHead(!acquired);
        }
    }

    void abandonAll(RuntimeException reason) {
        List<Acquisition> all;
        synchronized (this) {
            all = new ArrayList<>(waiters);
        }
        for (Acquisition a : all) {
            a.fail(reason);
        }
    }
}
