package io.holdfast;

import java.util.ArrayDeque;

/**
 * This client's waiters for one lock name, in arrival order, for stores that keep no order of their own
 * (SQL, Memcached, and Redis, whose queue orders clients, not their threads). Only the head polls the
 * store and only the head is woken by a release, so a hand-off costs this process one attempt however
 * many of its threads wait; a newcomer joins the tail instead of racing the head.
 *
 * <p>Invariants: the head is never an acquisition that is over (one that ends while queued leaves right
 * after, handing its turn on); an acquisition that is over is never added; an empty queue is retired and
 * dropped, and a retired queue takes no one (the joiner asks the client for the current one).
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
     * Adds a waiter at the tail; if it is the head, gives it its turn.
     *
     * @return false if this queue was retired meanwhile; join the current one then
     */
    boolean enqueue(Acquisition acquisition, boolean attemptNow) {
        boolean isHead;
        synchronized (this) {
            if (retired) {
                return false;
            }
            if (acquisition.isOver()) {
                return true; // ended before it could join (the client closed): nothing to add
            }
            waiters.addLast(acquisition);
            isHead = waiters.peekFirst() == acquisition;
        }
        if (isHead) {
            acquisition.turn(attemptNow);
        }
        return true;
    }

    /** Whether anyone of this client waits here (a newcomer then queues instead of attempting first). */
    synchronized boolean hasWaiters() {
        return !waiters.isEmpty();
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
     * Removes a waiter. If it was the head, the next one gets its turn: attempting at once if the leaver
     * gave up (the lock may be free), waiting for a signal or its first poll if the leaver took the lock.
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
                client.dropQueue(this);
            } else if (wasHead) {
                next = waiters.peekFirst();
            }
        }
        if (next != null) {
            next.turn(!acquired);
        }
    }
}
