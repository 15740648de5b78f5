package io.holdfast;

import io.holdfast.LockListener.AcquireOutcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A client's {@link LockListener}s, told in the order they were registered. Whatever a listener throws (an
 * exception or an {@link Error}) is logged and ignored, so a listener can neither break a lock's state machine
 * nor keep the others from being told: the first failure of each listener is logged at ERROR with its stack
 * trace, later ones at DEBUG, so a broken listener on a busy client does not flood the log. The core calls
 * these methods only outside its monitors, never from a state machine's transition.
 */
final class Listeners {
    private static final Logger log = LoggerFactory.getLogger(Listeners.class);

    private final List<LockListener> all;
    private final Set<LockListener> failedBefore = ConcurrentHashMap.newKeySet();

    Listeners(List<LockListener> listeners) {
        this.all = List.copyOf(listeners);
    }

    void acquireStarted(String name) {
        if (!all.isEmpty()) {
            tell("acquireStarted", l -> l.acquireStarted(name));
        }
    }

    /** The acquire that started at {@code startNanos} ended; {@code token} 0 unless acquired. */
    void acquireEnded(String name, AcquireOutcome outcome, long startNanos, long token) {
        if (!all.isEmpty()) {
            Duration waited = since(startNanos);
            tell("acquireEnded", l -> l.acquireEnded(name, outcome, waited, token));
        }
    }

    void released(String name, long token, long grantedAtNanos) {
        if (!all.isEmpty()) {
            Duration held = since(grantedAtNanos);
            tell("released", l -> l.released(name, token, held));
        }
    }

    void lost(String name, long token, long grantedAtNanos, String reason) {
        if (!all.isEmpty()) {
            Duration held = since(grantedAtNanos);
            tell("lost", l -> l.lost(name, token, held, reason));
        }
    }

    void renewalFailed(String name, long token, Throwable error) {
        if (!all.isEmpty()) {
            tell("renewalFailed", l -> l.renewalFailed(name, token, error));
        }
    }

    private static Duration since(long startNanos) {
        return Duration.ofNanos(Math.max(0, System.nanoTime() - startNanos));
    }

    private void tell(String event, Consumer<LockListener> call) {
        for (LockListener listener : all) {
            try {
                call.accept(listener);
            } catch (Throwable t) { // an Error too: a listener must not leave a wait or a lease half-ended
                if (failedBefore.add(listener)) {
                    log.error("lock listener {} threw from {}; ignored (later failures of this listener are logged at DEBUG)",
                            listener, event, t);
                } else {
                    log.debug("lock listener {} threw from {}; ignored", listener, event, t);
                }
            }
        }
    }
}
