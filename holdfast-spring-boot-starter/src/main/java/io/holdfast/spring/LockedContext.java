package io.holdfast.spring;

import io.holdfast.Hold;
import io.holdfast.Holdfast;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Optional;

/**
 * The holds of the {@link Locked} methods running on the calling thread, innermost first. Bound to the thread that
 * called the method: code the method hands to other threads sees nothing here (pass the {@link Hold} along).
 *
 * <pre>{@code
 * @Locked(name = "stock/#{#item}")
 * public void buy(String item) {
 *     stock.update(item, LockedContext.currentToken());   // the resource refuses tokens lower than it has seen
 * }
 * }</pre>
 */
public final class LockedContext {
    private static final ThreadLocal<ArrayDeque<Frame>> FRAMES = new ThreadLocal<>();

    private LockedContext() {
    }

    /** One running {@link Locked} method: the client that took its hold, and the hold. */
    private record Frame(Holdfast client, Hold hold) {
    }

    /** The hold of the innermost {@link Locked} method running on this thread, or empty outside such a method. */
    public static Optional<Hold> currentHold() {
        ArrayDeque<Frame> frames = FRAMES.get();
        return frames == null ? Optional.empty() : Optional.of(frames.peek().hold());
    }

    /** The hold of the innermost {@link Locked} method on this thread whose lock is {@code lockName}, or empty. */
    public static Optional<Hold> currentHold(String lockName) {
        ArrayDeque<Frame> frames = FRAMES.get();
        if (frames != null) {
            for (Frame f : frames) {
                if (f.hold().lockName().equals(lockName)) {
                    return Optional.of(f.hold());
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The fencing token of {@link #currentHold()}.
     *
     * @throws IllegalStateException if no {@link Locked} method runs on this thread (or the call did not go through
     *         the bean's proxy, see {@link Locked})
     */
    public static long currentToken() {
        return currentHold().orElseThrow(() -> new IllegalStateException("no @Locked method runs on this thread "
                + "(a call from the same object, this.method(), is not intercepted)")).fencingToken();
    }

    /** The hold this thread already has on {@code lockName} through {@code client}, for re-entry; null if none. */
    static Hold held(Holdfast client, String lockName) {
        ArrayDeque<Frame> frames = FRAMES.get();
        if (frames != null) {
            for (Frame f : frames) {
                if (f.client() == client && f.hold().lockName().equals(lockName)) {
                    return f.hold();
                }
            }
        }
        return null;
    }

    static void push(Holdfast client, Hold hold) {
        ArrayDeque<Frame> frames = FRAMES.get();
        if (frames == null) {
            frames = new ArrayDeque<>();
            FRAMES.set(frames);
        }
        frames.push(new Frame(client, hold));
    }

    /** Removes {@code hold}'s frame (the innermost); the thread keeps no state once its last frame is gone. */
    static void pop(Hold hold) {
        ArrayDeque<Frame> frames = FRAMES.get();
        if (frames == null) {
            return;
        }
        for (Iterator<Frame> it = frames.iterator(); it.hasNext(); ) {
            if (it.next().hold() == hold) {
                it.remove();
                break;
            }
        }
        if (frames.isEmpty()) {
            FRAMES.remove();
        }
    }
}
